import { Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { consoleApi } from '../api/console-api.js';
import { centralHealth, localTimeOfDay } from '../../core/texts.js';
import { STATUS_COLOR } from './colors.js';
import { useT } from '../i18n.js';

/** How often the live header asks the central service's heartbeat. */
export const HEARTBEAT_REFRESH_MS = 3_000;

/** The live header: whether the central service answers, in words, refreshed every few seconds. */
export function CentralHeartbeat() {
  const t = useT();
  const central = useQuery({
    queryKey: ['central'],
    queryFn: () => consoleApi.getCentral(),
    refetchInterval: HEARTBEAT_REFRESH_MS,
  });
  // The console's own process did not answer (the browser shell's tab outlives it): what was
  // last read is no longer the truth, whatever it said.
  const gone = central.isError;
  const { health, text } = gone
    ? { health: 'bad' as const, text: t('central.consoleGone') }
    : centralHealth(central.data);
  const color =
    health === 'ok'
      ? STATUS_COLOR.ok
      : health === 'bad'
        ? STATUS_COLOR.bad
        : health === 'warn'
          ? STATUS_COLOR.warn
          : STATUS_COLOR.neutral;
  // The whole reason stays readable: the text wraps (never cut with an ellipsis).
  return (
    <Group gap="xs" wrap="nowrap" role="status" aria-label={t('central.status')} miw={0}>
      <span
        aria-hidden
        style={{ width: 12, height: 12, borderRadius: 6, background: color, flexShrink: 0 }}
      />
      <Text
        size="sm"
        c={color}
        fw={600}
        data-health={health}
        style={{ overflowWrap: 'anywhere' }}
        lh={1.3}
      >
        {text}
        {!gone && central.data?.checkedAt && (
          <Text span size="xs" c="var(--mantine-color-text)" fw={400} visibleFrom="sm">
            {t('central.checkedAt', { at: localTimeOfDay(central.data.checkedAt) })}
          </Text>
        )}
      </Text>
    </Group>
  );
}
