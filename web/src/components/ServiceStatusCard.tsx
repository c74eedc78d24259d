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
import { describeError, formatUptime } from '../messages';

const REFRESH_INTERVAL_MS = 15_000;

type StatusState =
  | { kind: 'loading' }
  | { kind: 'loaded'; data: HeartbeatResponse; checkedAt: Date }
  | { kind: 'failed'; message: string; checkedAt: Date };

const databaseLabel: Record<HeartbeatResponse['database']['state'], string> = {
  up: 'Connected',
  down: 'Not reachable',
  connecting: 'Connecting',
};

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
            Service status
          </Title>
          <Button variant="light" size="xs" onClick={() => void load()} loading={busy}>
            Refresh status
          </Button>
        </Group>
        {status.kind === 'loading' && <Text c="dimmed">Checking the service…</Text>}
        {status.kind === 'failed' && (
          <Alert color="red" title="Service not reachable" data-testid="status-error">
            {status.message}
          </Alert>
        )}
        {status.kind === 'loaded' && <StatusDetails data={status.data} />}
        {status.kind !== 'loading' && (
          <Text size="xs" c="dimmed" data-testid="status-checked-at">
            Last checked {status.checkedAt.toLocaleTimeString()}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function StatusDetails({ data }: { data: HeartbeatResponse }) {
  const ok = data.state === 1;
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} component="dl" m={0}>
        <Field label="State" testId="status-state">
          <Badge color={ok ? 'green' : 'red'} variant="light" component="span">
            {ok ? 'Running (state 1)' : 'Degraded (state 0)'}
          </Badge>
        </Field>
        <Field label="Version" testId="status-version">
          {data.version}
        </Field>
        <Field label="Database" testId="status-database">
          {databaseLabel[data.database.state]} ({data.database.dialect})
        </Field>
        <Field label="Uptime" testId="status-uptime">
          {formatUptime(data.uptimeSeconds)}
        </Field>
      </SimpleGrid>
      {data.database.message !== undefined && data.database.state !== 'up' && (
        <Text size="sm" c="red">
          {data.database.message}
        </Text>
      )}
      <div data-testid="status-warnings">
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          Warnings
        </Text>
        {data.warnings.length === 0 ? (
          <Text size="sm">None</Text>
        ) : (
          <List size="sm" aria-label="Warnings">
            {data.warnings.map((warning) => (
              <List.Item key={warning}>{warning}</List.Item>
            ))}
          </List>
        )}
      </div>
    </Stack>
  );
}
