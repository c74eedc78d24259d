import {
  Alert,
  Badge,
  Group,
  Loader,
  Select,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
  Button,
} from '@mantine/core';
import { ScrollHint } from '../components/ScrollHint';
import { wrapInCell } from '../components/badgeStyles';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { listAllSpaces } from '../spaces/api';
import { PEOPLE_EXPORT_URL, listPeople } from './api';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { ButtonLink, Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { getPeopleSync } from '../sync/api';
import { byName, formatTotal, formatValidity, spaceNames } from './format';
import { SyncHealth } from './SyncHealth';
import { Pages } from '../components/Pages';

export const PEOPLE_PAGE_SIZE = 25;

/** People, searched on the server: `q` (name or ID-number prefix), a space, name order. */
const route = getRouteApi('/people');

export function PeoplePage() {
  const t = useT();
  useDocumentTitle(t('nav.people'));
  const canEdit = useCanEdit();
  const navigate = route.useNavigate();
  const search = route.useSearch();
  const q = search.q ?? '';
  const spaceId = search.space ?? '';
  const sort = search.sort ?? 'name';
  const page = search.page ?? 1;

  const go = (change: { q?: string; space?: string; sort?: string; page?: number }) => {
    const next = { q, space: spaceId, sort, page: 1, ...change };
    void navigate({
      search: {
        q: next.q === '' ? undefined : next.q,
        space: next.space === '' ? undefined : next.space,
        sort: next.sort === '-name' ? '-name' : undefined,
        page: next.page === 1 ? undefined : next.page,
      },
      replace: change.q !== undefined,
    });
  };

  // What is typed goes to the URL (and the server) once typing pauses.
  const [typed, setTyped] = useState(q);
  const [debounced] = useDebouncedValue(typed, 300);
  useEffect(() => {
    if (debounced.trim() !== q.trim()) go({ q: debounced });
    // `go` reads the current query; only a new debounced text should navigate.
  }, [debounced]);
  // Back/forward changes the query under the box: show it (but never undo what is being typed).
  useEffect(() => {
    if (q.trim() !== debounced.trim()) setTyped(q);
  }, [q]);

  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  const people = useApiQuery(
    [...keys.people, 'list', { q, spaceId, sort, page }],
    (signal) =>
      listPeople(
        {
          q: q.trim() || undefined,
          spaceId: spaceId || undefined,
          sort,
          page,
          pageSize: PEOPLE_PAGE_SIZE,
        },
        signal,
      ),
    { keepPrevious: true },
  );
  // The visible page's people only (at most 25): their tasks counted by state. Under keys.sync,
  // so every `sync` message of the stream refreshes it (live.tsx).
  const shownIds = (people.data?.items ?? []).map((person) => person.id);
  const health = useApiQuery([...keys.sync, 'people', shownIds], (signal) =>
    getPeopleSync(shownIds, signal),
  );
  const pages =
    people.data === null ? 1 : Math.max(1, Math.ceil(people.data.total / PEOPLE_PAGE_SIZE));
  const rows =
    people.data === null
      ? []
      : sort === 'name' || sort === '-name'
        ? byName(people.data.items, sort === '-name')
        : people.data.items;

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.people')}</Title>
        {canEdit && (
          <Group gap="sm">
            <Button component="a" href={PEOPLE_EXPORT_URL} download variant="default">
              {t('events.exportCsv')}
            </Button>
            <ButtonLink to="/people/new">{t('people.new')}</ButtonLink>
          </Group>
        )}
      </Group>

      <Group align="end">
        <TextInput
          label={t('people.search')}
          description={t('people.searchHelp')}
          placeholder={t('people.searchPlaceholder')}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          w={320}
          type="search"
        />
        <Select
          label={t('devices.space')}
          placeholder={t('people.allSpaces')}
          data={(spaces.data ?? []).map((space) => ({ value: space.id, label: space.name }))}
          value={spaceId || null}
          onChange={(value) => go({ space: value ?? '' })}
          clearable
          searchable
          nothingFoundMessage={t('people.noSuchSpace')}
          w={260}
        />
        {people.loading && <Loader size="sm" role="status" aria-label={t('people.loading')} />}
      </Group>

      {people.error !== null && (
        <Alert color="red" title={t('people.notLoaded')} data-testid="people-error">
          {people.error}
        </Alert>
      )}

      {people.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="people-total">
            {people.data.totalCapped
              ? t('people.totalCapped', {
                  total: formatTotal(people.data.total, people.data.totalCapped),
                })
              : t('people.total', { count: people.data.total })}
          </Text>
          <ScrollHint />
          <Table.ScrollContainer minWidth={820}>
            <Table striped highlightOnHover aria-label={t('nav.people')} data-testid="people-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th aria-sort={sort === 'name' ? 'ascending' : 'descending'}>
                    <UnstyledButton
                      fw={700}
                      onClick={() => go({ sort: sort === 'name' ? '-name' : 'name' })}
                      aria-label={
                        sort === 'name' ? t('people.sortedAscending') : t('people.sortedDescending')
                      }
                    >
                      {t('people.nameSorted', { arrow: sort === 'name' ? '▲' : '▼' })}
                    </UnstyledButton>
                  </Table.Th>
                  <Table.Th>{t('people.idNumber')}</Table.Th>
                  <Table.Th>{t('people.spaces')}</Table.Th>
                  <Table.Th>{t('people.valid')}</Table.Th>
                  <Table.Th>{t('people.status')}</Table.Th>
                  <Table.Th>{t('people.photo')}</Table.Th>
                  <Table.Th>{t('nav.devices')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((person) => (
                  <Table.Tr key={person.id} data-testid="person-row">
                    <Table.Td style={wrapInCell}>
                      <Link to="/people/$id" params={{ id: person.id }}>
                        {person.name}
                      </Link>
                    </Table.Td>
                    <Table.Td style={wrapInCell}>{person.idNumber}</Table.Td>
                    <Table.Td style={wrapInCell}>
                      {spaceNames(person.spaceIds, spaces.data)}
                    </Table.Td>
                    <Table.Td>{formatValidity(person)}</Table.Td>
                    <Table.Td>
                      <Badge color={person.enabled ? 'green' : 'gray'} variant="light">
                        {person.enabled ? t('people.enabled') : t('people.disabled')}
                      </Badge>
                    </Table.Td>
                    <Table.Td data-testid="person-photo">
                      {person.photoSha256 === null ? (
                        <Badge color="orange" variant="light">
                          {t('people.noPhoto')}
                        </Badge>
                      ) : (
                        t('people.hasPhoto')
                      )}
                    </Table.Td>
                    <Table.Td>
                      {health.data === null ? (
                        '…'
                      ) : (
                        <SyncHealth counts={health.data.get(person.id)} />
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {people.data.items.length === 0 && (
            <Text data-testid="people-empty">{t('people.noneMatch')}</Text>
          )}
          <Pages
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) => go({ page: next })}
            hideWithOnePage
          />
        </>
      )}
    </>
  );
}
