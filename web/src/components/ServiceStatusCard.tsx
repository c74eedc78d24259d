import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { HeartbeatResponse } from '@svc/shared';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { heartbeat } from '../api';
import { useT } from '../i18n';
import { formatClock } from '../i18n/format';
import { warningTexts } from '../i18n/warnings';
import { describeError, formatUptime } from '../messages';

const REFRESH_INTERVAL_MS = 15_000;

type StatusState =
  | { kind: 'loading' }
  | { kind: 'loaded'; data: HeartbeatResponse; checkedAt: Date }
  | { kind: 'failed'; message: string; checkedAt: Date };

function Field({
  label,
  testId,
  children,
}: {
  label: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600} component="dt">
        {label}
      </Text>
      <Text component="dd" m={0} data-testid={testId}>
        {children}
      </Text>
    </div>
  );
}

/** "Service status" from `GET /api/heartbeat`, refreshed every 15 s (while visible) and on demand. */
export function ServiceStatusCard() {
  const t = useT();
  const [status, setStatus] = useState<StatusState>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(async () => {
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setBusy(true);
    try {
      const data = await heartbeat(controller.signal);
      setStatus({ kind: 'loaded', data, checkedAt: new Date() });
    } catch (error) {
      if (controller.signal.aborted) return;
      setStatus({ kind: 'failed', message: describeError(error, 'other'), checkedAt: new Date() });
    } finally {
      if (inFlight.current === controller) {
        inFlight.current = null;
        setBusy(false);
      }
    }
  }, []);

  useEffect(() => {
    void load();
    const timer = window.setInterval(() => {
      if (!document.hidden) void load();
    }, REFRESH_INTERVAL_MS);
    return () => {
      window.clearInterval(timer);
      inFlight.current?.abort();
    };
  }, [load]);

  return (
    <Card
      withBorder
      radius="md"
      padding="lg"
      component="section"
      aria-labelledby="status-title"
      data-testid="service-status"
    >
      <Stack gap="md">
        <Group justify="space-between" align="center">
          <Title order={2} size="h3" id="status-title">
            {t('status.title')}
          </Title>
          <Button variant="light" size="xs" onClick={() => void load()} loading={busy}>
            {t('status.refresh')}
          </Button>
        </Group>
        {status.kind === 'loading' && <Text c="dimmed">{t('status.checking')}</Text>}
        {status.kind === 'failed' && (
          <Alert color="red" title={t('status.unreachable')} data-testid="status-error">
            {status.message}
          </Alert>
        )}
        {status.kind === 'loaded' && <StatusDetails data={status.data} />}
        {status.kind !== 'loading' && (
          <Text size="xs" c="dimmed" data-testid="status-checked-at">
            {t('status.checkedAt', { time: formatClock(status.checkedAt) })}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function StatusDetails({ data }: { data: HeartbeatResponse }) {
  const t = useT();
  const ok = data.state === 1;
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} component="dl" m={0}>
        <Field label={t('status.state')} testId="status-state">
          <Badge color={ok ? 'green' : 'red'} variant="light" component="span">
            {ok ? t('status.running') : t('status.degraded')}
          </Badge>
        </Field>
        <Field label={t('status.version')} testId="status-version">
          {data.version}
        </Field>
        <Field label={t('status.database')} testId="status-database">
          {t(`status.db.${data.database.state}`, { dialect: data.database.dialect })}
        </Field>
        <Field label={t('status.uptime')} testId="status-uptime">
          {formatUptime(data.uptimeSeconds)}
        </Field>
      </SimpleGrid>
      {data.database.message !== undefined && data.database.state !== 'up' && (
        <Text size="sm" c="red">
          {t(`status.dbMessage.${data.database.state}`)}
        </Text>
      )}
      <div data-testid="status-warnings">
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          {t('status.warnings')}
        </Text>
        {data.warnings.length === 0 ? (
          <Text size="sm">{t('status.none')}</Text>
        ) : (
          <List size="sm" aria-label={t('status.warnings')}>
            {warningTexts(data).map((warning) => (
              <List.Item key={warning}>{warning}</List.Item>
            ))}
          </List>
        )}
      </div>
    </Stack>
  );
}
