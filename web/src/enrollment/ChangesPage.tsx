import { Alert, Badge, Group, Loader, Select, Table, Text, Title } from '@mantine/core';
import type { EnrollmentChangeState } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useT } from '../i18n';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import type { ChangesSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { changedText, listChanges, stateLabel } from './api';
import { Pages } from '../components/Pages';

export const CHANGES_PAGE_SIZE = 25;

const route = getRouteApi('/enrollment/changes');

/** `label`: a catalog key. */
const stateChoices: { value: NonNullable<ChangesSearchParams['state']>; label: string }[] = [
  { value: 'pending', label: 'enrollment.state.pending' },
  { value: 'approved', label: 'enrollment.state.approved' },
  { value: 'rejected', label: 'enrollment.state.rejected' },
  { value: 'superseded', label: 'enrollment.state.superseded' },
  { value: 'all', label: 'enrollment.state.all' },
];

/**
 * Re-enrollments from enrollment terminals that would change a person's name or photo, held
 * for an administrator's review (oldest first: the longest waiting on top). No stream message
 * announces a new one, so the list is asked again every 15 s.
 */
export function ChangesPage() {
  const t = useT();
  useDocumentTitle(t('nav.pendingChanges'));
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
        <Title order={1}>{t('nav.pendingChanges')}</Title>
      </Group>
      <Text c="dimmed" size="sm">
        {t('enrollment.intro')}
      </Text>
      <Group align="end">
        <Select
          label={t('sync.col.state')}
          data={stateChoices.map((choice) => ({ value: choice.value, label: t(choice.label) }))}
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
        {changes.loading && <Loader size="sm" role="status" aria-label={t('enrollment.loading')} />}
      </Group>
      {changes.error !== null && (
        <Alert color="red" title={t('enrollment.notLoaded')} data-testid="changes-error">
          {changes.error}
        </Alert>
      )}
      {changes.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="changes-total">
            {t('enrollment.total', { count: changes.data.total })}
          </Text>
          {changes.data.items.length === 0 ? (
            <Text data-testid="changes-empty">
              {shown === 'pending' ? t('enrollment.emptyPending') : t('enrollment.emptyState')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table striped aria-label={t('enrollment.changes')} data-testid="changes-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('enrollment.received')}</Table.Th>
                    <Table.Th>{t('events.col.person')}</Table.Th>
                    <Table.Th>{t('enrollment.wouldChange')}</Table.Th>
                    <Table.Th>{t('enrollment.terminal')}</Table.Th>
                    <Table.Th>{t('sync.col.state')}</Table.Th>
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
                      <Table.Td>{changedText(change)}</Table.Td>
                      <Table.Td>{change.terminalId}</Table.Td>
                      <Table.Td>
                        <Badge color={stateLabel[change.state].color} variant="light">
                          {t(stateLabel[change.state].text)}
                        </Badge>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Pages
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
