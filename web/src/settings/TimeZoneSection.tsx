import { Alert, Button, Group, Select, Stack, Text, Title } from '@mantine/core';
import type { TimeZoneOut } from '@svc/shared';
import { useState } from 'react';
import { useT } from '../i18n';
import { formatDateTime, setFormatTimeZone } from '../i18n/format';
import { said, saidFailure, saidWith, say, type Said } from '../said';
import { keys, queryClient } from '../query';
import { useSession } from '../session';
import { setTimeZone } from './api';

/** The value of "the server's own" in the list (zone names never start with "="). */
const SERVER = '=server';

function zones(): string[] {
  const known = Intl.supportedValuesOf('timeZone');
  return known.includes('UTC') ? known : ['UTC', ...known];
}

/**
 * The zone every time on the site is shown in, for all organizations: a superadmin chooses it
 * (or the server's own); everyone else reads which one it is.
 */
export function TimeZoneSection({ zone }: { zone: TimeZoneOut }) {
  const t = useT();
  const { state, refresh } = useSession();
  const superadmin = state.status === 'signedIn' && state.user.role === 'superadmin';
  const [value, setValue] = useState<string>(zone.chosen ? zone.timeZone : SERVER);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: Said } | null>(null);
  const server = t('settings.timeZone.server', { zone: zone.serverTimeZone });
  const data = [{ value: SERVER, label: server }, ...zones().map((z) => ({ value: z, label: z }))];
  const unchanged = value === (zone.chosen ? zone.timeZone : SERVER);

  const save = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const saved = await setTimeZone(value === SERVER ? null : value);
      setFormatTimeZone(saved.timeZone);
      await queryClient.invalidateQueries({ queryKey: keys.settings });
      // The session answer carries the zone too: every page shows times in it from now on.
      await refresh();
      const now = new Date();
      setMessage({
        ok: true,
        text: said('settings.timeZone.saved', {
          zone: saved.timeZone,
          now: saidWith(() => formatDateTime(now)),
        }),
      });
    } catch (error) {
      setMessage({ ok: false, text: saidFailure(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack component="section" aria-labelledby="settings-time-zone-title">
      <Title order={2} id="settings-time-zone-title">
        {t('settings.timeZone.title')}
      </Title>
      <Text data-testid="settings-time-zone">
        {t(zone.chosen ? 'settings.timeZone.chosen' : 'settings.timeZone.default', {
          zone: zone.timeZone,
          server: zone.serverTimeZone,
        })}
      </Text>
      {superadmin ? (
        <Group align="end" maw={560}>
          <Select
            label={t('settings.timeZone.label')}
            description={t('settings.timeZone.help')}
            data={data}
            value={value}
            onChange={(next) => setValue(next ?? SERVER)}
            searchable
            allowDeselect={false}
            nothingFoundMessage={t('settings.timeZone.noMatch')}
            comboboxProps={{ withinPortal: true }}
            style={{ flex: 1 }}
          />
          <Button onClick={() => void save()} loading={busy} disabled={unchanged}>
            {t('settings.timeZone.save')}
          </Button>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          {t('settings.timeZone.superadminOnly')}
        </Text>
      )}
      {message !== null && (
        <Alert
          color={message.ok ? 'green' : 'red'}
          role="status"
          maw={560}
          data-testid="time-zone-message"
        >
          {say(message.text)}
        </Alert>
      )}
    </Stack>
  );
}
