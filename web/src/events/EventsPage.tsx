import {
  Alert,
  Badge,
  Group,
  Loader,
  Pagination,
  Select,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { deliveryChange, recognitionEvent, type RecognitionEvent } from '../contracts';
import { localInputToIso } from '../people/datetime';
import { formatTotal } from '../people/format';
import { listAllDevices, listEvents, type EventSearch } from '../resources';
import { navigate, useLocation, withQuery } from '../router';
import { useDocumentTitle } from '../useDocumentTitle';
import { useLoad } from '../useLoad';
import { EventTable } from './EventTable';
import { useLiveStream, type LiveStatus } from './live';
import { PersonPicker } from './PersonPicker';

export const EVENTS_PAGE_SIZE = 50;

const liveLabel: Record<LiveStatus, { text: string; color: string }> = {
  connecting: { text: 'Connecting', color: 'gray' },
  live: { text: 'Live', color: 'green' },
  reconnecting: { text: 'Reconnecting', color: 'orange' },
};

/** Whether a streamed event belongs on the page the filters describe. */
function matches(event: RecognitionEvent, search: EventSearch): boolean {
  if (search.personId !== undefined && event.person?.id !== search.personId) return false;
  if (search.deviceId !== undefined && event.device.id !== search.deviceId) return false;
  if (search.from !== undefined && event.time < search.from) return false;
  if (search.to !== undefined && event.time >= search.to) return false;
  return true;
}

/** Recognition events, newest first, searched by person, device and time, updated live. */
export function EventsPage() {
  useDocumentTitle('Events');
  const { query, search: queryText } = useLocation();
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const search: EventSearch = {
    personId: query.get('person') ?? undefined,
    deviceId: query.get('device') ?? undefined,
    from: localInputToIso(from) ?? undefined,
    to: localInputToIso(to) ?? undefined,
    page: Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1),
    pageSize: EVENTS_PAGE_SIZE,
  };
  const go = (change: Record<string, string | number | null>, replace = false) => {
    const current = {
      person: query.get('person'),
      device: query.get('device'),
      from,
      to,
      page: 1,
    };
    const next = { ...current, ...change };
    navigate(
      withQuery('/events', {
        person: next.person ?? undefined,
        device: next.device ?? undefined,
        from: next.from ?? undefined,
        to: next.to ?? undefined,
        page: next.page === 1 ? undefined : (next.page ?? undefined),
      }),
      { replace },
    );
  };

  const devices = useLoad('devices', (signal) => listAllDevices(signal));
  const events = useLoad(`events${queryText}`, (signal) => listEvents(search, signal));
  const [rows, setRows] = useState<{ items: RecognitionEvent[]; total: number } | null>(null);
  useEffect(() => setRows(events.data), [events.data]);

  const status = useLiveStream({
    on: {
      recognition: (data) => {
        const parsed = recognitionEvent.safeParse(data);
        if (!parsed.success || !matches(parsed.data, search)) return;
        const event = parsed.data;
        setRows((current) => {
          if (current === null || current.items.some((item) => item.id === event.id))
            return current;
          // Newest first: only the first page shows it, in its place by time.
          if (search.page !== 1) return { ...current, total: current.total + 1 };
          const items = [...current.items, event]
            .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0))
            .slice(0, EVENTS_PAGE_SIZE);
          return { items, total: current.total + 1 };
        });
      },
      delivery: (data) => {
        const parsed = deliveryChange.safeParse(data);
        if (!parsed.success) return;
        const { id, delivery } = parsed.data;
        setRows((current) =>
          current === null
            ? current
            : {
                ...current,
                items: current.items.map((item) => (item.id === id ? { ...item, delivery } : item)),
              },
        );
      },
    },
    onResync: events.reload,
  });

  const pages = rows === null ? 1 : Math.max(1, Math.ceil(rows.total / EVENTS_PAGE_SIZE));
  const live = liveLabel[status];

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>Events</Title>
        <Badge color={live.color} variant="dot" size="lg" data-testid="live-status" role="status">
          {live.text}
        </Badge>
      </Group>
      <Group align="end">
        <PersonPicker value={search.personId ?? null} onChange={(person) => go({ person })} />
        <Select
          label="Device"
          placeholder="Any device"
          data={(devices.data ?? []).map((device) => ({
            value: device.id,
            label: `${device.name} (${device.sn})`,
          }))}
          value={search.deviceId ?? null}
          onChange={(device) => go({ device })}
          searchable
          clearable
          w={260}
        />
        <TextInput
          type="datetime-local"
          label="From"
          value={from}
          onChange={(e) => go({ from: e.currentTarget.value }, true)}
        />
        <TextInput
          type="datetime-local"
          label="Until"
          value={to}
          onChange={(e) => go({ to: e.currentTarget.value }, true)}
        />
        {events.loading && <Loader size="sm" aria-label="Loading events" />}
      </Group>
      {events.error !== null && (
        <Alert color="red" title="The events could not be loaded" data-testid="events-error">
          {events.error}
        </Alert>
      )}
      {rows !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="events-total">
            {formatTotal(rows.total, false)} {rows.total === 1 ? 'event' : 'events'}
          </Text>
          <EventTable items={rows.items} />
          <Pagination
            total={pages}
            value={Math.min(search.page, pages)}
            onChange={(page) =>
              go({ page, person: search.personId ?? null, device: search.deviceId ?? null })
            }
            hideWithOnePage
          />
        </>
      )}
    </>
  );
}
