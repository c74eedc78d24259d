import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Pagination,
  Select,
  SimpleGrid,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import type { AuditEntryOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useEffect } from 'react';
import { useCanEdit } from '../access';
import { schemaResolver } from '../forms';
import { Link } from '../nav';
import { formatTime, formatTotal } from '../people/format';
import { keys, useApiQuery } from '../query';
import type { AuditSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { auditFormSchema, exportUrl, searchAudit, toFilter, type AuditFormValues } from './api';

export const AUDIT_PAGE_SIZE = 50;

const route = getRouteApi('/audit');

const outcomes = [
  { value: 'success', label: 'Success' },
  { value: 'failure', label: 'Failure' },
  { value: 'denied', label: 'Denied' },
  { value: 'rate_limited', label: 'Rate limited' },
];

const outcomeColor: Record<string, string> = {
  success: 'green',
  failure: 'red',
  denied: 'orange',
  rate_limited: 'orange',
};

function formValues(params: AuditSearchParams): AuditFormValues {
  return {
    actor: params.actor ?? '',
    action: params.action ?? '',
    outcome: params.outcome ?? '',
    targetType: params.targetType ?? '',
    targetId: params.targetId ?? '',
    from: params.from ?? '',
    to: params.to ?? '',
  };
}

/**
 * The audit log, newest first: searched by actor, action (both from the start), outcome,
 * object (type and id) and time. The search lives in the URL; Export CSV downloads every row
 * of the same search. Administrators only (the API refuses operators).
 */
export function AuditPage() {
  useDocumentTitle('Audit log');
  const canRead = useCanEdit();
  const params = route.useSearch();
  const navigate = route.useNavigate();
  const page = params.page ?? 1;
  const values = formValues(params);
  const filter = toFilter(values);

  const form = useForm<AuditFormValues>({
    mode: 'controlled',
    initialValues: values,
    validate: schemaResolver<AuditFormValues>(auditFormSchema),
    validateInputOnChange: true,
  });
  // Back/forward (or a link) changes the search under the form: show it.
  const key = JSON.stringify(values);
  useEffect(() => {
    form.setValues(values);
  }, [key]);

  const entries = useApiQuery(
    [...keys.audit, filter, page],
    (signal) => searchAudit(filter ?? {}, { page, pageSize: AUDIT_PAGE_SIZE }, signal),
    { keepPrevious: true, enabled: canRead && filter !== null },
  );
  const pages =
    entries.data === null ? 1 : Math.max(1, Math.ceil(entries.data.total / AUDIT_PAGE_SIZE));
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim());

  if (!canRead) {
    return (
      <>
        <Title order={1}>Audit log</Title>
        <Alert color="yellow" data-testid="not-allowed">
          The audit log is for administrators.
        </Alert>
      </>
    );
  }

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>Audit log</Title>
        {filter !== null && (
          <Button component="a" href={exportUrl(filter)} download variant="default">
            Export CSV
          </Button>
        )}
      </Group>
      <form
        aria-label="Search the audit log"
        noValidate
        onSubmit={form.onSubmit((v) => {
          void navigate({
            search: {
              actor: text(v.actor),
              action: text(v.action),
              outcome: text(v.outcome),
              targetType: text(v.targetType),
              targetId: text(v.targetId),
              from: text(v.from),
              to: text(v.to),
              page: undefined,
            },
          });
        })}
      >
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
          <TextInput
            label="Actor"
            description="User name, from the start"
            {...form.getInputProps('actor')}
          />
          <TextInput
            label="Action"
            description="From the start, e.g. enrollment.change"
            {...form.getInputProps('action')}
          />
          <Select
            label="Outcome"
            placeholder="Any outcome"
            data={outcomes}
            clearable
            {...form.getInputProps('outcome')}
            value={form.values.outcome === '' ? null : form.values.outcome}
            onChange={(value: string | null) => form.setFieldValue('outcome', value ?? '')}
          />
          <TextInput
            label="Object type"
            description="e.g. person, device, space"
            {...form.getInputProps('targetType')}
          />
          <TextInput
            label="Object ID"
            description="The exact id"
            {...form.getInputProps('targetId')}
          />
          <TextInput type="datetime-local" label="From" {...form.getInputProps('from')} />
          <TextInput type="datetime-local" label="Until" {...form.getInputProps('to')} />
          <Group align="end">
            <Button type="submit">Search</Button>
            {entries.loading && <Loader size="sm" aria-label="Loading the audit log" />}
          </Group>
        </SimpleGrid>
      </form>
      {entries.error !== null && (
        <Alert color="red" title="The audit log could not be loaded" data-testid="audit-error">
          {entries.error}
        </Alert>
      )}
      {entries.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="audit-total">
            {formatTotal(entries.data.total, false)}{' '}
            {entries.data.total === 1 ? 'entry' : 'entries'}
          </Text>
          {entries.data.items.length === 0 ? (
            <Text data-testid="audit-empty">Nothing matches this search.</Text>
          ) : (
            <AuditTable items={entries.data.items} />
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

function Target({ target }: { target: AuditEntryOut['target'] }) {
  if (target === null) return <>—</>;
  if (target.type === 'person' && target.id !== null) {
    return (
      <Link to="/people/$id" params={{ id: target.id }}>
        person {target.id}
      </Link>
    );
  }
  return (
    <>
      {target.type} {target.id ?? ''}
    </>
  );
}

function AuditTable({ items }: { items: AuditEntryOut[] }) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped aria-label="Audit log" data-testid="audit-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Actor</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>Outcome</Table.Th>
            <Table.Th>Object</Table.Th>
            <Table.Th>Address</Table.Th>
            <Table.Th>What happened</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((entry) => (
            <Table.Tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
              <Table.Td>{formatTime(entry.at)}</Table.Td>
              <Table.Td>{entry.actor ?? '—'}</Table.Td>
              <Table.Td>{entry.action}</Table.Td>
              <Table.Td>
                <Badge color={outcomeColor[entry.outcome] ?? 'gray'} variant="light">
                  {entry.outcome}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Target target={entry.target} />
              </Table.Td>
              <Table.Td>{entry.ip ?? '—'}</Table.Td>
              <Table.Td>{entry.summary}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
