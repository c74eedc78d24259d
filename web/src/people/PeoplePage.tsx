import {
  Alert,
  Badge,
  Group,
  Loader,
  Pagination,
  Select,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
  Button,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { PEOPLE_EXPORT_URL, listAllSpaces, listPeople } from '../resources';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { ButtonLink, Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { getPeopleSync } from '../sync/api';
import { formatTotal, formatValidity, spaceNames } from './format';
import { SyncHealth } from './SyncHealth';

export const PEOPLE_PAGE_SIZE = 25;

/** People, searched on the server: `q` (name or ID-number prefix), a space, name order. */
const route = getRouteApi('/people');

export function PeoplePage() {
  useDocumentTitle('People');
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

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>People</Title>
        {canEdit && (
          <Group gap="sm">
            <Button component="a" href={PEOPLE_EXPORT_URL} download variant="default">
              Export CSV
            </Button>
            <ButtonLink to="/people/new">New person</ButtonLink>
          </Group>
        )}
      </Group>

      <Group align="end">
        <TextInput
          label="Search"
          description="Name or ID number, from the start"
          placeholder="e.g. Martin or AB-10"
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          w={320}
          type="search"
        />
        <Select
          label="Space"
          placeholder="All spaces"
          data={(spaces.data ?? []).map((space) => ({ value: space.id, label: space.name }))}
          value={spaceId || null}
          onChange={(value) => go({ space: value ?? '' })}
          clearable
          searchable
          nothingFoundMessage="No such space"
          w={260}
        />
        {people.loading && <Loader size="sm" aria-label="Loading people" />}
      </Group>

      {people.error !== null && (
        <Alert color="red" title="The people could not be loaded" data-testid="people-error">
          {people.error}
        </Alert>
      )}

      {people.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="people-total">
            {formatTotal(people.data.total, people.data.totalCapped)}{' '}
            {people.data.total === 1 && !people.data.totalCapped ? 'person' : 'people'}
          </Text>
          <Table.ScrollContainer minWidth={820}>
            <Table striped highlightOnHover aria-label="People" data-testid="people-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th aria-sort={sort === 'name' ? 'ascending' : 'descending'}>
                    <UnstyledButton
                      fw={700}
                      onClick={() => go({ sort: sort === 'name' ? '-name' : 'name' })}
                      aria-label={`Name, sorted ${sort === 'name' ? 'A to Z' : 'Z to A'}; change order`}
                    >
                      Name {sort === 'name' ? '▲' : '▼'}
                    </UnstyledButton>
                  </Table.Th>
                  <Table.Th>ID number</Table.Th>
                  <Table.Th>Spaces</Table.Th>
                  <Table.Th>Valid</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Photo</Table.Th>
                  <Table.Th>Devices</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {people.data.items.map((person) => (
                  <Table.Tr key={person.id} data-testid="person-row">
                    <Table.Td>
                      <Link to="/people/$id" params={{ id: person.id }}>
                        {person.name}
                      </Link>
                    </Table.Td>
                    <Table.Td>{person.idNumber}</Table.Td>
                    <Table.Td>{spaceNames(person.spaceIds, spaces.data)}</Table.Td>
                    <Table.Td>{formatValidity(person)}</Table.Td>
                    <Table.Td>
                      <Badge color={person.enabled ? 'green' : 'gray'} variant="light">
                        {person.enabled ? 'Enabled' : 'Disabled'}
                      </Badge>
                    </Table.Td>
                    <Table.Td data-testid="person-photo">
                      {person.photoSha256 === null ? (
                        <Badge color="orange" variant="light">
                          No photo
                        </Badge>
                      ) : (
                        'Yes'
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
            <Text data-testid="people-empty">No one matches.</Text>
          )}
          <Pagination
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) => go({ page: next })}
            hideWithOnePage
            aria-label="Pages"
            getControlProps={(control) => ({
              'aria-label':
                control === 'previous'
                  ? 'Previous page'
                  : control === 'next'
                    ? 'Next page'
                    : control,
            })}
          />
        </>
      )}
    </>
  );
}
