import { Alert, Button, Group, Loader, Select, Text, TextInput, Title } from '@mantine/core';
import type { RecognitionEventOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { LiveBadge } from '../components/LiveBadge';
import { localInputToIso, timeInputHelp } from '../people/datetime';
import { keys, useApiQuery } from '../query';
import { listAllDevices } from '../devices/api';
import { exportEventsUrl, listEvents, type EventSearch } from './api';
import type { EventsSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { EventTable } from './EventTable';
import { PersonPicker } from './PersonPicker';
import { Pages } from '../components/Pages';
import { ScrollHint } from '../components/ScrollHint';

/** The instant of a datetime-local value, comparable as text (ISO UTC); undefined when none. */
const search0 = (value: string) => localInputToIso(value) ?? undefined;

export const EVENTS_PAGE_SIZE = 50;

const route = getRouteApi('/events');

/**
 * Recognition events, newest first, searched by person, device and time. Live: every
 * `recognition` and `delivery` message of the stream invalidates the events query (live.tsx),
 * so a new event shows when it belongs to the search, and never when it does not.
 */
export function EventsPage() {
  const t = useT();
  useDocumentTitle(t('nav.events'));
  const params = route.useSearch();
  const navigate = route.useNavigate();
  const from = params.from ?? '';
  const to = params.to ?? '';
  // A range that ends before it starts finds nothing: said in words, and not asked for.
  const reversed =
    search0(from) !== undefined &&
    search0(to) !== undefined &&
    (search0(from) ?? '') > (search0(to) ?? '');
  const search: EventSearch = {
    personId: params.person,
    deviceId: params.device,
    from: localInputToIso(from) ?? undefined,
    to: localInputToIso(to) ?? undefined,
    page: params.page ?? 1,
    pageSize: EVENTS_PAGE_SIZE,
  };
  const go = (
    change: Partial<Record<keyof EventsSearchParams, string | number | null>>,
    replace = false,
  ) => {
    const next = { ...params, page: 1, ...change };
    const text = (value: string | number | null | undefined) =>
      value === null || value === undefined || value === '' ? undefined : String(value);
    void navigate({
      search: {
        person: text(next.person),
        device: text(next.device),
        from: text(next.from),
        to: text(next.to),
        page: next.page === 1 || next.page === null ? undefined : Number(next.page),
      },
      replace,
    });
  };

  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const events = useApiQuery([...keys.events, search], (signal) => listEvents(search, signal), {
    keepPrevious: true,
    enabled: !reversed,
  });
  const rows: { items: RecognitionEventOut[]; total: number } | null = events.data;
  // The export is for administrators (the API refuses operators).
  const canExport = useCanEdit();

  const pages = rows === null ? 1 : Math.max(1, Math.ceil(rows.total / EVENTS_PAGE_SIZE));

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.events')}</Title>
        <Group gap="sm">
          <LiveBadge />
          {canExport && !reversed && (
            <Button
              component="a"
              href={exportEventsUrl(search)}
              download
              variant="default"
              aria-describedby="events-export-size"
            >
              {t('events.exportCsv')}
            </Button>
          )}
        </Group>
      </Group>
      <Group align="end">
        <PersonPicker value={search.personId ?? null} onChange={(person) => go({ person })} />
        <Select
          label={t('events.device')}
          placeholder={t('events.anyDevice')}
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
          label={t('events.from')}
          description={timeInputHelp()}
          value={from}
          onChange={(e) => go({ from: e.currentTarget.value }, true)}
        />
        <TextInput
          type="datetime-local"
          label={t('events.until')}
          description={timeInputHelp()}
          value={to}
          onChange={(e) => go({ to: e.currentTarget.value }, true)}
        />
        {events.loading && <Loader size="sm" role="status" aria-label={t('events.loading')} />}
      </Group>
      {reversed && (
        <Alert color="yellow" role="alert" data-testid="events-reversed">
          {t('events.reversed')}
        </Alert>
      )}
      {!reversed && events.error !== null && (
        <Alert color="red" title={t('events.notLoaded')} data-testid="events-error">
          {events.error}
        </Alert>
      )}
      {rows !== null && !reversed && (
        <>
          <Text size="sm" c="dimmed" data-testid="events-total">
            {t('events.total', { count: rows.total })}
          </Text>
          {canExport && rows.total > 0 && (
            <Text size="xs" c="dimmed" id="events-export-size" data-testid="events-export-size">
              {t('events.exportSize', { count: rows.total })}
            </Text>
          )}
          {rows.items.length > 0 && <ScrollHint />}
          <EventTable items={rows.items} />
          <Pages
            total={pages}
            value={Math.min(search.page, pages)}
            onChange={(page) => go({ page })}
            hideWithOnePage
          />
        </>
      )}
    </>
  );
}
