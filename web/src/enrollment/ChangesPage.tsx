import { Alert, Badge, Group, Loader, Pagination, Select, Table, Text, Title } from '@mantine/core';
import type { EnrollmentChangeState } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { Link } from '../nav';
import { formatTime, formatTotal } from '../people/format';
import { keys, useApiQuery } from '../query';
import type { ChangesSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { changedParts, listChanges, stateLabel } from './api';

export const CHANGES_PAGE_SIZE = 25;

const route = getRouteApi('/enrollment/changes');

const stateChoices: { value: NonNullable<ChangesSearchParams['state']>; label: string }[] = [
  { value: 'pending', label: 'Pending review' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'superseded', label: 'Superseded' },
  { value: 'all', label: 'All' },
];

/**
 * Re-enrollments from enrollment terminals that would change a person's name or photo, held
 * for an administrator's review (oldest first: the longest waiting on top). No stream message
 * announces a new one, so the list is asked again every 15 s.
 */
export function ChangesPage() {
  useDocumentTitle('Pending changes');
  const params = route.useSearch();
  const navigate = route.useNavigate();
  const shown = params.state ?? 'pending';
  const state: EnrollmentChangeState | undefined = shown === 'all' ? undefined : shown;
  const page = params.page ?? 1;
  const changes = useApiQuery(
    [...keys.enrollmentChanges, 'list', { state, page }],
    (signal) => listChanges({ state, page, pageSize: CHANGES_PAGE_SIZE }, signal),
    { keepPrevious: true, refetchInterval: 15_000 },
  );
  const pages =
    changes.data === null ? 1 : Math.max(1, Math.ceil(changes.data.total / CHANGES_PAGE_SIZE));

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>Pending changes</Title>
      </Group>
      <Text c="dimmed" size="sm">
        An enrollment terminal that enrolls a known ID number again with another name or photo
        changes nobody: the change waits here until an administrator approves or rejects it.
      </Text>
      <Group align="end">
        <Select
          label="State"
          data={stateChoices}
          value={shown}
          allowDeselect={false}
          onChange={(value) =>
            void navigate({
              search: {
                state: value === 'pending' || value === null ? undefined : stateOf(value),
                page: undefined,
              },
            })
          }
          w={220}
        />
        {changes.loading && <Loader size="sm" aria-label="Loading changes" />}
      </Group>
      {changes.error !== null && (
        <Alert color="red" title="The changes could not be loaded" data-testid="changes-error">
          {changes.error}
        </Alert>
      )}
      {changes.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="changes-total">
            {formatTotal(changes.data.total, false)}{' '}
            {changes.data.total === 1 ? 'change' : 'changes'}
          </Text>
          {changes.data.items.length === 0 ? (
            <Text data-testid="changes-empty">
              {shown === 'pending'
                ? 'Nothing waits for review. A re-enrollment that would change a name or photo appears here.'
                : 'No change in this state.'}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table striped aria-label="Changes" data-testid="changes-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Received</Table.Th>
                    <Table.Th>Person</Table.Th>
                    <Table.Th>Would change</Table.Th>
                    <Table.Th>Terminal</Table.Th>
                    <Table.Th>State</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {changes.data.items.map((change) => (
                    <Table.Tr key={change.id} data-testid="change-row" data-id={change.id}>
                      <Table.Td>
                        <Link to="/enrollment/changes/$id" params={{ id: change.id }}>
                          {formatTime(change.createdAt)}
                        </Link>
                      </Table.Td>
                      <Table.Td>
                        <Link to="/people/$id" params={{ id: change.personId }}>
                          {change.oldName}
                        </Link>
                      </Table.Td>
                      <Table.Td>{changedParts(change).join(' and ')}</Table.Td>
                      <Table.Td>{change.terminalId}</Table.Td>
                      <Table.Td>
                        <Badge color={stateLabel[change.state].color} variant="light">
                          {stateLabel[change.state].text}
                        </Badge>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Pagination
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) =>
              void navigate({ search: { ...params, page: next === 1 ? undefined : next } })
            }
            hideWithOnePage
          />
        </>
      )}
    </>
  );
}

function stateOf(value: string): ChangesSearchParams['state'] {
  return stateChoices.find((choice) => choice.value === value)?.value;
}
