import { Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ServiceStatusCard } from '../components/ServiceStatusCard';
import { EventTable } from '../events/EventTable';
import { useLiveStatus } from '../live';
import { Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { listEvents } from '../resources';
import { useDocumentTitle } from '../useDocumentTitle';
import { countDevices, countEvents, countPeople, countSyncTasks, countTerminals } from './api';

/** Device online state and terminals heard change without a stream message: asked again. */
const POLL_MS = 10_000;
const LATEST_EVENTS = 10;

function Tile({
  title,
  testId,
  error,
  children,
}: {
  title: string;
  testId: string;
  error: string | null;
  children: ReactNode;
}) {
  const id = `tile-${testId}`;
  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={id}>
      <Text id={id} size="xs" c="dimmed" tt="uppercase" fw={600}>
        {title}
      </Text>
      <div data-testid={testId}>
        {error !== null ? (
          <Text size="sm" c="red">
            {error}
          </Text>
        ) : (
          children
        )}
      </div>
    </Card>
  );
}

const big = { size: 'xl', fw: 700 } as const;
const n = (value: number | undefined) => (value === undefined ? '…' : value.toLocaleString());

export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const live = useLiveStatus();
  const devices = useApiQuery([...keys.devices, 'count'], countDevices, {
    refetchInterval: POLL_MS,
  });
  const terminals = useApiQuery([...keys.discovery, 'count'], countTerminals, {
    refetchInterval: POLL_MS,
  });
  const people = useApiQuery([...keys.people, 'count'], countPeople);
  const pending = useApiQuery([...keys.sync, 'count', 'pending'], (s) =>
    countSyncTasks('pending', s),
  );
  const failed = useApiQuery([...keys.sync, 'count', 'failed'], (s) => countSyncTasks('failed', s));
  const waiting = useApiQuery([...keys.events, 'count', 'pending'], (s) =>
    countEvents('pending', s),
  );
  const expired = useApiQuery([...keys.events, 'count', 'expired'], (s) =>
    countEvents('expired', s),
  );
  const latest = useApiQuery([...keys.events, 'latest'], (s) =>
    listEvents({ page: 1, pageSize: LATEST_EVENTS }, s),
  );

  return (
    <Stack gap="lg">
      {/* The title row on its own (the 390 px check measures the h1's row). */}
      <Group>
        <Title order={1}>Dashboard</Title>
      </Group>
      <ServiceStatusCard />
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }}>
        <Tile title="Devices online" testId="dash-devices" error={devices.error}>
          <Text {...big}>
            {n(devices.data?.online)} / {n(devices.data?.total)}
          </Text>
          <Link to="/devices" size="sm">
            Devices
          </Link>
        </Tile>
        <Tile title="Terminals heard" testId="dash-terminals" error={terminals.error}>
          <Text size="sm">
            Enrollment: <b>{n(terminals.data?.enrollment)}</b>
          </Text>
          <Text size="sm">
            Display: <b>{n(terminals.data?.display)}</b>
          </Text>
          <Link to="/system" size="sm">
            System Configuration
          </Link>
        </Tile>
        <Tile title="People" testId="dash-people" error={people.error}>
          <Text {...big}>
            {people.data === null
              ? '…'
              : people.data.capped
                ? `${people.data.total.toLocaleString()}+`
                : people.data.total.toLocaleString()}
          </Text>
          <Link to="/people" size="sm">
            People
          </Link>
        </Tile>
        <Tile title="Sync backlog" testId="dash-sync" error={pending.error ?? failed.error}>
          <Text size="sm">
            Pending: <b data-testid="dash-sync-pending">{n(pending.data ?? undefined)}</b>
          </Text>
          <Text size="sm">
            Failed: <b data-testid="dash-sync-failed">{n(failed.data ?? undefined)}</b>
          </Text>
          <Link to="/sync" size="sm">
            Synchronization
          </Link>
        </Tile>
        <Tile
          title="Undelivered events"
          testId="dash-undelivered"
          error={waiting.error ?? expired.error}
        >
          <Text size="sm">
            Waiting: <b data-testid="dash-events-pending">{n(waiting.data ?? undefined)}</b>
          </Text>
          <Text size="sm">
            Expired: <b data-testid="dash-events-expired">{n(expired.data ?? undefined)}</b>
          </Text>
          <Link to="/events" size="sm">
            Events
          </Link>
        </Tile>
      </SimpleGrid>
      <Card withBorder radius="md" padding="md" component="section" aria-labelledby="latest-title">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h3" id="latest-title">
            Latest events
          </Title>
          <Text size="sm" data-testid="dash-live">
            {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting' : 'Reconnecting'}
          </Text>
        </Group>
        {latest.error !== null && (
          <Text size="sm" c="red">
            {latest.error}
          </Text>
        )}
        {latest.data !== null && (
          // The table scrolls inside the card on a phone (EventTable's own scroll container).
          <EventTable items={latest.data.items} />
        )}
      </Card>
    </Stack>
  );
}
