import { Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ServiceStatusCard } from '../components/ServiceStatusCard';
import { EventTable } from '../events/EventTable';
import { useLiveStatus } from '../live';
import { Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { listEvents } from '../events/api';
import { useDocumentTitle } from '../useDocumentTitle';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { formatNumber } from '../i18n/format';
import { Tx } from '../i18n/Tx';
import { FirstSessionChecklist } from './FirstSessionChecklist';
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
const n = (value: number | undefined) => (value === undefined ? '…' : formatNumber(value));
const b = { b: <b /> };

export function DashboardPage() {
  const t = useT();
  useDocumentTitle(t('nav.dashboard'));
  const canEdit = useCanEdit();
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
  const noPhoto = useApiQuery([...keys.sync, 'count', 'waiting'], (s) =>
    countSyncTasks('waiting', s),
  );
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
        <Title order={1}>{t('nav.dashboard')}</Title>
      </Group>
      <ServiceStatusCard />
      {canEdit && <FirstSessionChecklist />}
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }}>
        <Tile title={t('dashboard.devicesOnline')} testId="dash-devices" error={devices.error}>
          <Text {...big}>
            {n(devices.data?.online)} / {n(devices.data?.total)}
          </Text>
          <Link to="/devices" size="sm">
            {t('nav.devices')}
          </Link>
        </Tile>
        <Tile title={t('dashboard.terminalsHeard')} testId="dash-terminals" error={terminals.error}>
          <Text size="sm">
            <Tx
              k="dashboard.enrollment"
              values={{ count: n(terminals.data?.enrollment) }}
              components={b}
            />
          </Text>
          <Text size="sm">
            <Tx
              k="dashboard.display"
              values={{ count: n(terminals.data?.display) }}
              components={b}
            />
          </Text>
          <Link to="/system" size="sm">
            {t('nav.system')}
          </Link>
        </Tile>
        <Tile title={t('nav.people')} testId="dash-people" error={people.error}>
          <Text {...big}>
            {people.data === null
              ? '…'
              : people.data.capped
                ? `${formatNumber(people.data.total)}+`
                : formatNumber(people.data.total)}
          </Text>
          <Link to="/people" size="sm">
            {t('nav.people')}
          </Link>
        </Tile>
        <Tile
          title={t('dashboard.syncBacklog')}
          testId="dash-sync"
          error={pending.error ?? failed.error}
        >
          <Text size="sm">
            <Tx
              k="dashboard.pending"
              values={{ count: n(pending.data ?? undefined) }}
              components={{ b: <b data-testid="dash-sync-pending" /> }}
            />
          </Text>
          <Text size="sm">
            <Tx
              k="dashboard.failed"
              values={{ count: n(failed.data ?? undefined) }}
              components={{ b: <b data-testid="dash-sync-failed" /> }}
            />
          </Text>
          <Text size="sm">
            <Tx
              k="dashboard.waitingForPhoto"
              values={{ count: n(noPhoto.data ?? undefined) }}
              components={{ b: <b data-testid="dash-sync-waiting" /> }}
            />
          </Text>
          <Link to="/sync" size="sm">
            {t('nav.sync')}
          </Link>
        </Tile>
        <Tile
          title={t('dashboard.undelivered')}
          testId="dash-undelivered"
          error={waiting.error ?? expired.error}
        >
          <Text size="sm">
            <Tx
              k="dashboard.waiting"
              values={{ count: n(waiting.data ?? undefined) }}
              components={{ b: <b data-testid="dash-events-pending" /> }}
            />
          </Text>
          <Text size="sm">
            <Tx
              k="dashboard.expired"
              values={{ count: n(expired.data ?? undefined) }}
              components={{ b: <b data-testid="dash-events-expired" /> }}
            />
          </Text>
          <Link to="/events" size="sm">
            {t('nav.events')}
          </Link>
        </Tile>
      </SimpleGrid>
      <Card withBorder radius="md" padding="md" component="section" aria-labelledby="latest-title">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h3" id="latest-title">
            {t('dashboard.latestEvents')}
          </Title>
          <Text size="sm" data-testid="dash-live">
            {t(`live.${live}`)}
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
