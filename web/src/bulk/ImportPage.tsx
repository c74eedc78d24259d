import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  FileInput,
  Group,
  Progress,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { importFiles, type ImportCheckOut, type ImportJobOut } from '@svc/shared';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { currentLocale, useT } from '../i18n';
import { formatNumber } from '../i18n/format';
import { Tx } from '../i18n/Tx';
import { schemaResolver } from '../forms';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { useFormSubmit } from '../useFormSubmit';
import { ApiError } from '../api';
import { checkImport, errorsUrl, percentDone, recentImports, startImport } from './api';
import { CheckResult } from './CheckResult';
import { PhotoReport } from './PhotoReport';
import { RowsTable } from './RowsTable';

/** How often a running import's progress is read (the server saves it every half second). */
const PROGRESS_EVERY_MS = 1_000;

interface ImportForm {
  csv: File | null;
  photos: File | null;
}

/** `text`: the catalog key of the state's name. */
const stateLabel: Record<ImportJobOut['state'], { text: string; color: string }> = {
  running: { text: 'import.state.running', color: 'blue' },
  succeeded: { text: 'import.state.succeeded', color: 'green' },
  failed: { text: 'import.state.failed', color: 'red' },
};

/** The template in the site's language: the Chinese one's header names the columns in Chinese. */
const template = () =>
  currentLocale() === 'zh-CN' ? 'people-template.zh-CN.csv' : 'people-template.csv';

/**
 * People import: a CSV and an optional ZIP of photos named by ID number. The server imports in
 * the background; the page follows the organization's latest import (so after a reload it
 * shows the one still running), its progress, and the rows it refused with a CSV of them.
 */
export function ImportPage() {
  const t = useT();
  useDocumentTitle(t('nav.import'));
  const canImport = useCanEdit();
  // Progress is read again while the latest import runs, and not otherwise.
  const imports = useApiQuery(keys.imports, (signal) => recentImports(signal), {
    enabled: canImport,
    refetchInterval: (jobs) => (jobs?.[0]?.state === 'running' ? PROGRESS_EVERY_MS : false),
  });
  const latest = imports.data?.[0] ?? null;

  if (!canImport) {
    return (
      <>
        <Group>
          <Title order={1}>{t('nav.import')}</Title>
        </Group>
        <Alert color="yellow" data-testid="not-allowed">
          {t('import.forAdministrators')}
        </Alert>
      </>
    );
  }

  return (
    <>
      <Group>
        <Title order={1}>{t('nav.import')}</Title>
      </Group>
      <UploadForm busy={latest?.state === 'running'} />
      {imports.error !== null && (
        <Alert color="red" title={t('import.notLoaded')}>
          {imports.error}
        </Alert>
      )}
      {latest !== null && <ImportProgress job={latest} />}
      {imports.data !== null && imports.data.length > 1 && (
        <EarlierImports jobs={imports.data.slice(1)} />
      )}
    </>
  );
}

function UploadForm({ busy }: { busy: boolean }) {
  const t = useT();
  const form = useForm<ImportForm>({
    mode: 'controlled',
    initialValues: { csv: null, photos: null },
    validate: schemaResolver<ImportForm>(importFiles),
  });
  const submit = useFormSubmit(form);
  const [check, setCheck] = useState<ImportCheckOut | null>(null);
  const [checking, setChecking] = useState(false);
  // The file the last check refused as a whole: it cannot be imported as it is.
  const [refusedFile, setRefusedFile] = useState<File | null>(null);
  // Another CSV or ZIP chosen after a check: its verdict was about the old files, so it goes,
  // and the new ones are checked before they can be imported.
  const [mustCheck, setMustCheck] = useState(false);
  const fileProps = (field: keyof ImportForm) => {
    const props = form.getInputProps(field);
    return {
      ...props,
      onChange: (file: File | null) => {
        form.setFieldValue(field, file);
        if (check !== null || refusedFile !== null || mustCheck) {
          setCheck(null);
          setMustCheck(file !== null);
        }
      },
    };
  };
  const runCheck = async () => {
    setCheck(null);
    setRefusedFile(null);
    setMustCheck(false);
    submit.clear();
    if (form.validate().hasErrors || form.values.csv === null) return;
    const csv = form.values.csv;
    setChecking(true);
    try {
      setCheck(await checkImport(csv, form.values.photos));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      form.setErrors(error.fields);
      if (error.status === 400) setRefusedFile(csv);
    } finally {
      setChecking(false);
    }
  };
  // Another file (or none) chosen since: the refusal was about the old one.
  const checkFailed = refusedFile !== null && refusedFile === form.values.csv;
  const start = submit.handler(
    async (values) => {
      if (values.csv === null) return null;
      setCheck(null);
      await startImport({ csv: values.csv, photos: values.photos });
      form.reset();
      setMustCheck(false);
      return null;
    },
    () => queryClient.invalidateQueries({ queryKey: keys.imports }),
  );

  return (
    <Stack component="section" aria-labelledby="import-upload-title">
      <Title order={2} id="import-upload-title">
        {t('import.new')}
      </Title>
      <Text size="sm" c="dimmed">
        <Tx k="import.help" components={{ code: <Code /> }} />
      </Text>
      <Anchor href={`/${template()}`} download={template()} size="sm">
        {t('import.template')}
      </Anchor>
      <form onSubmit={start} aria-label={t('import.new')} noValidate>
        <Stack maw={560}>
          <FileInput
            label={t('import.csv')}
            placeholder={t('import.chooseCsv')}
            accept=".csv,text/csv"
            withAsterisk
            clearable
            clearButtonProps={{ 'aria-label': t('import.clearCsv') }}
            {...fileProps('csv')}
          />
          <FileInput
            label={t('import.photos')}
            placeholder={t('import.chooseZip')}
            accept=".zip,application/zip"
            clearable
            clearButtonProps={{ 'aria-label': t('import.clearZip') }}
            {...fileProps('photos')}
          />
          <Group>
            <Button variant="default" loading={checking} onClick={() => void runCheck()}>
              {t('import.check')}
            </Button>
            <Button type="submit" loading={submit.busy} disabled={checkFailed || mustCheck}>
              {t('import.start')}
            </Button>
            {mustCheck && !checkFailed && (
              <Text size="sm" c="dimmed" data-testid="import-check-again">
                {t('import.checkAgain')}
              </Text>
            )}
            {checkFailed && (
              <Text size="sm" c="dimmed" data-testid="import-fix-first">
                {t('import.fixFirst')}
              </Text>
            )}
            {busy && (
              <Text size="sm" c="dimmed">
                {t('import.alongside')}
              </Text>
            )}
          </Group>
          {check !== null && <CheckResult check={check} />}
          {submit.message !== null && !submit.message.ok && (
            <Alert color="red" role="alert" title={t('import.notStarted')}>
              {submit.message.text}
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}

function ImportProgress({ job }: { job: ImportJobOut }) {
  const t = useT();
  const percent = percentDone(job);
  const state = stateLabel[job.state];
  return (
    <Stack
      component="section"
      aria-labelledby="import-latest-title"
      data-testid="import-latest"
      data-state={job.state}
    >
      <Group justify="space-between">
        <Title order={2} id="import-latest-title">
          {t('import.latest')}
        </Title>
        <Badge color={state.color} variant="light" size="lg" data-testid="import-state">
          {t(state.text)}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed">
        {job.finishedAt === null
          ? t('import.started', { time: formatTime(job.createdAt) })
          : t('import.startedEnded', {
              time: formatTime(job.createdAt),
              ended: formatTime(job.finishedAt),
            })}
      </Text>
      <Progress
        value={percent}
        size="lg"
        aria-label={t('import.progress')}
        color={job.state === 'failed' ? 'red' : undefined}
        animated={job.state === 'running'}
      />
      <Text data-testid="import-counts" role="status">
        {job.state === 'running' && job.total === 0
          ? t('import.reading')
          : t('import.counts', {
              processed: job.processed,
              total: job.total,
              percent,
              succeeded: job.succeeded,
              failed: job.failed,
            })}
      </Text>
      {job.errors.length > 0 && <RowErrors job={job} />}
      <PhotoReport report={job.photos} />
      {job.errors.length === 0 && (job.photos?.withoutPhotoCount ?? 0) > 0 && (
        // The errors CSV lists the rows saved without their photo too: still something to fix.
        <Group>
          <Button component="a" href={errorsUrl(job.id)} download variant="default">
            {t('import.downloadErrors')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function RowErrors({ job }: { job: ImportJobOut }) {
  const t = useT();
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3}>{t('import.refused')}</Title>
        <Button component="a" href={errorsUrl(job.id)} download variant="default">
          {t('import.downloadErrors')}
        </Button>
      </Group>
      {job.failed > job.errors.length && (
        <Text size="sm" c="dimmed">
          {t('import.firstListed', { shown: job.errors.length, failed: job.failed })}
        </Text>
      )}
      <RowsTable label={t('import.refused')} rows={job.errors} rowTestId="import-error" />
    </Stack>
  );
}

function EarlierImports({ jobs }: { jobs: ImportJobOut[] }) {
  const t = useT();
  return (
    <Stack component="section" aria-labelledby="import-earlier-title">
      <Title order={2} id="import-earlier-title">
        {t('import.earlier')}
      </Title>
      <Table.ScrollContainer minWidth={560}>
        <Table striped aria-label={t('import.earlier')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('import.col.started')}</Table.Th>
              <Table.Th>{t('sync.col.state')}</Table.Th>
              <Table.Th>{t('import.col.rows')}</Table.Th>
              <Table.Th>{t('import.col.refused')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {jobs.map((job) => (
              <Table.Tr key={job.id}>
                <Table.Td>{formatTime(job.createdAt)}</Table.Td>
                <Table.Td>{t(stateLabel[job.state].text)}</Table.Td>
                <Table.Td>
                  {t('import.rowsOf', { processed: job.processed, total: job.total })}
                </Table.Td>
                <Table.Td>
                  {job.failed === 0 ? (
                    '0'
                  ) : (
                    <Anchor href={errorsUrl(job.id)} download>
                      {t('import.refusedCsv', { count: formatNumber(job.failed) })}
                    </Anchor>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
