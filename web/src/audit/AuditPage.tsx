import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Select,
  SimpleGrid,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Pages } from '../components/Pages';
import { useForm } from '@mantine/form';
import type { AuditEntryOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useEffect } from 'react';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { schemaResolver } from '../forms';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import type { AuditSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { auditFormSchema, exportUrl, searchAudit, toFilter, type AuditFormValues } from './api';
import { auditActor, auditSummary, settingName } from './summary';

export const AUDIT_PAGE_SIZE = 50;

const route = getRouteApi('/audit');

const outcomes = ['success', 'failure', 'denied', 'rate_limited'];

/** The kinds of object the audit log names (`target.type`); another shows as its code. */
const targetTypes = [
  'acceptance_report',
  'administrator',
  'device',
  'enrollment_change',
  'import',
  'organization',
  'person',
  'setting',
  'space',
  'sync_task',
  'system',
  'terminal',
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
  const t = useT();
  useDocumentTitle(t('nav.audit'));
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
        <Title order={1}>{t('nav.audit')}</Title>
        <Alert color="yellow" data-testid="not-allowed">
          {t('audit.forAdministrators')}
        </Alert>
      </>
    );
  }

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.audit')}</Title>
        {filter !== null && (
          <Button component="a" href={exportUrl(filter)} download variant="default">
            {t('events.exportCsv')}
          </Button>
        )}
      </Group>
      <form
        aria-label={t('audit.search')}
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
            label={t('audit.actor')}
            description={t('audit.actorHelp')}
            {...form.getInputProps('actor')}
          />
          <TextInput
            label={t('audit.action')}
            description={t('audit.actionHelp')}
            {...form.getInputProps('action')}
          />
          <Select
            label={t('audit.outcome')}
            placeholder={t('audit.anyOutcome')}
            data={outcomes.map((value) => ({ value, label: t(`audit.outcomes.${value}`) }))}
            clearable
            {...form.getInputProps('outcome')}
            value={form.values.outcome === '' ? null : form.values.outcome}
            onChange={(value: string | null) => form.setFieldValue('outcome', value ?? '')}
          />
          <TextInput
            label={t('audit.objectType')}
            description={t('audit.objectTypeHelp')}
            {...form.getInputProps('targetType')}
          />
          <TextInput
            label={t('audit.objectId')}
            description={t('audit.objectIdHelp')}
            {...form.getInputProps('targetId')}
          />
          <TextInput
            type="datetime-local"
            label={t('events.from')}
            {...form.getInputProps('from')}
          />
          <TextInput
            type="datetime-local"
            label={t('events.until')}
            {...form.getInputProps('to')}
          />
          <Group align="end">
            <Button type="submit">{t('audit.searchButton')}</Button>
            {entries.loading && <Loader size="sm" role="status" aria-label={t('audit.loading')} />}
          </Group>
        </SimpleGrid>
      </form>
      {entries.error !== null && (
        <Alert color="red" title={t('audit.notLoaded')} data-testid="audit-error">
          {entries.error}
        </Alert>
      )}
      {entries.data !== null && (
        <>
          <Text size="sm" c="dimmed" data-testid="audit-total">
            {t('audit.total', { count: entries.data.total })}
          </Text>
          {entries.data.items.length === 0 ? (
            <Text data-testid="audit-empty">{t('audit.empty')}</Text>
          ) : (
            <AuditTable items={entries.data.items} />
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

function Target({ target }: { target: AuditEntryOut['target'] }) {
  const t = useT();
  if (target === null) return <>—</>;
  if (target.type === 'person' && target.id !== null) {
    return (
      <Link to="/people/$id" params={{ id: target.id }}>
        {t('audit.personTarget', { id: target.id })}
      </Link>
    );
  }
  const type = targetTypes.includes(target.type)
    ? t(`audit.targetType.${target.type}`)
    : target.type;
  // A setting by its label ("时区"), not its key ("time_zone").
  const id = target.type === 'setting' && target.id !== null ? settingName(target.id) : target.id;
  return <>{id === null ? type : t('audit.target', { type, id })}</>;
}

/** Worded from its code and values; a row written before codes keeps its English summary. */
function Summary({ entry }: { entry: AuditEntryOut }) {
  useT();
  const { text, coded } = auditSummary(entry);
  return coded ? (
    <Table.Td data-testid="audit-summary">{text}</Table.Td>
  ) : (
    <Table.Td data-testid="audit-summary" data-server-text>
      {text}
    </Table.Td>
  );
}

function AuditTable({ items }: { items: AuditEntryOut[] }) {
  const t = useT();
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped aria-label={t('nav.audit')} data-testid="audit-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('events.col.time')}</Table.Th>
            <Table.Th>{t('audit.actor')}</Table.Th>
            <Table.Th>{t('audit.action')}</Table.Th>
            <Table.Th>{t('audit.outcome')}</Table.Th>
            <Table.Th>{t('audit.object')}</Table.Th>
            <Table.Th>{t('audit.address')}</Table.Th>
            <Table.Th>{t('audit.what')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((entry) => (
            <Table.Tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
              <Table.Td>{formatTime(entry.at)}</Table.Td>
              {/* A username as recorded; the service, a terminal, … in the site's language. */}
              {entry.actorCode === null ? (
                <Table.Td data-server-text>{entry.actor ?? '—'}</Table.Td>
              ) : (
                <Table.Td data-testid="audit-actor">{auditActor(entry)}</Table.Td>
              )}
              <Table.Td>{entry.action}</Table.Td>
              <Table.Td>
                <Badge color={outcomeColor[entry.outcome] ?? 'gray'} variant="light">
                  {outcomes.includes(entry.outcome)
                    ? t(`audit.outcomes.${entry.outcome}`)
                    : entry.outcome}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Target target={entry.target} />
              </Table.Td>
              <Table.Td>{entry.ip ?? '—'}</Table.Td>
              <Summary entry={entry} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
