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
import { importFiles, type ImportJobOut } from '@svc/shared';
import { useCanEdit } from '../access';
import { schemaResolver } from '../forms';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { useFormSubmit } from '../useFormSubmit';
import { errorsUrl, percentDone, recentImports, startImport } from './api';

/** How often a running import's progress is read (the server saves it every half second). */
const PROGRESS_EVERY_MS = 1_000;

interface ImportForm {
  csv: File | null;
  photos: File | null;
}

const stateLabel: Record<ImportJobOut['state'], { text: string; color: string }> = {
  running: { text: 'Running', color: 'blue' },
  succeeded: { text: 'Finished', color: 'green' },
  failed: { text: 'Stopped', color: 'red' },
};

/**
 * People import: a CSV and an optional ZIP of photos named by ID number. The server imports in
 * the background; the page follows the organization's latest import (so after a reload it
 * shows the one still running), its progress, and the rows it refused with a CSV of them.
 */
export function ImportPage() {
  useDocumentTitle('Import');
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
          <Title order={1}>Import</Title>
        </Group>
        <Alert color="yellow" data-testid="not-allowed">
          Importing people is for administrators.
        </Alert>
      </>
    );
  }

  return (
    <>
      <Group>
        <Title order={1}>Import</Title>
      </Group>
      <UploadForm busy={latest?.state === 'running'} />
      {imports.error !== null && (
        <Alert color="red" title="Imports could not be loaded">
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
  const form = useForm<ImportForm>({
    mode: 'controlled',
    initialValues: { csv: null, photos: null },
    validate: schemaResolver<ImportForm>(importFiles),
  });
  const submit = useFormSubmit(form);
  const start = form.onSubmit((values) =>
    submit.run(
      async () => {
        if (values.csv === null) return null;
        await startImport({ csv: values.csv, photos: values.photos });
        form.reset();
        return null;
      },
      () => queryClient.invalidateQueries({ queryKey: keys.imports }),
    ),
  );

  return (
    <Stack component="section" aria-labelledby="import-upload-title">
      <Title order={2} id="import-upload-title">
        New import
      </Title>
      <Text size="sm" c="dimmed">
        A CSV with a header row: <Code>name</Code> and <Code>idNumber</Code> are required;{' '}
        <Code>phone</Code>, <Code>notes</Code>, <Code>validFrom</Code>, <Code>validUntil</Code>,{' '}
        <Code>enabled</Code> and <Code>spaces</Code> (names separated by ;) are optional. A person
        whose ID number exists is updated. Photos: a ZIP of files named by ID number, e.g.
        AB-1001.jpg.
      </Text>
      <form onSubmit={(e) => void start(e)} aria-label="New import" noValidate>
        <Stack maw={560}>
          <FileInput
            label="People (CSV)"
            placeholder="Choose a .csv file"
            accept=".csv,text/csv"
            withAsterisk
            clearable
            {...form.getInputProps('csv')}
          />
          <FileInput
            label="Photos (ZIP, optional)"
            placeholder="Choose a .zip file"
            accept=".zip,application/zip"
            clearable
            {...form.getInputProps('photos')}
          />
          <Group>
            <Button type="submit" loading={submit.busy}>
              Start import
            </Button>
            {busy && (
              <Text size="sm" c="dimmed">
                An import is running; a new one runs alongside it.
              </Text>
            )}
          </Group>
          {submit.message !== null && !submit.message.ok && (
            <Alert color="red" role="alert" title="The import did not start">
              {submit.message.text}
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}

function ImportProgress({ job }: { job: ImportJobOut }) {
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
          Latest import
        </Title>
        <Badge color={state.color} variant="light" size="lg" data-testid="import-state">
          {state.text}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed">
        Started {formatTime(job.createdAt)}
        {job.finishedAt !== null && `, ended ${formatTime(job.finishedAt)}`}
      </Text>
      <Progress
        value={percent}
        size="lg"
        aria-label="Import progress"
        color={job.state === 'failed' ? 'red' : undefined}
        animated={job.state === 'running'}
      />
      <Text data-testid="import-counts" role="status">
        {job.state === 'running' && job.total === 0
          ? 'Reading the file…'
          : `${job.processed.toLocaleString()} of ${job.total.toLocaleString()} rows (${percent} %): ` +
            `${job.succeeded.toLocaleString()} imported, ${job.failed.toLocaleString()} refused`}
      </Text>
      {job.errors.length > 0 && <RowErrors job={job} />}
    </Stack>
  );
}

function RowErrors({ job }: { job: ImportJobOut }) {
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3}>Refused rows</Title>
        <Button component="a" href={errorsUrl(job.id)} download variant="default">
          Download errors (CSV)
        </Button>
      </Group>
      {job.failed > job.errors.length && (
        <Text size="sm" c="dimmed">
          The first {job.errors.length.toLocaleString()} of {job.failed.toLocaleString()} are
          listed.
        </Text>
      )}
      <Table.ScrollContainer minWidth={480} mah={420}>
        <Table striped aria-label="Refused rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Row</Table.Th>
              <Table.Th>ID number</Table.Th>
              <Table.Th>Reason</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {job.errors.map((error) => (
              <Table.Tr key={`${error.row}-${error.error}`} data-testid="import-error">
                <Table.Td>{error.row === 0 ? 'file' : error.row}</Table.Td>
                <Table.Td>{error.idNumber ?? '—'}</Table.Td>
                <Table.Td>{error.error}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

function EarlierImports({ jobs }: { jobs: ImportJobOut[] }) {
  return (
    <Stack component="section" aria-labelledby="import-earlier-title">
      <Title order={2} id="import-earlier-title">
        Earlier imports
      </Title>
      <Table.ScrollContainer minWidth={560}>
        <Table striped aria-label="Earlier imports">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Rows</Table.Th>
              <Table.Th>Refused</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {jobs.map((job) => (
              <Table.Tr key={job.id}>
                <Table.Td>{formatTime(job.createdAt)}</Table.Td>
                <Table.Td>{stateLabel[job.state].text}</Table.Td>
                <Table.Td>
                  {job.processed.toLocaleString()} of {job.total.toLocaleString()}
                </Table.Td>
                <Table.Td>
                  {job.failed === 0 ? (
                    '0'
                  ) : (
                    <Anchor href={errorsUrl(job.id)} download>
                      {job.failed.toLocaleString()} (CSV)
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
