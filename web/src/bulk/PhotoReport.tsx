import { Stack, Table, Text, Title } from '@mantine/core';
import type { ImportPhotosReport } from '@svc/shared';
import { useT } from '../i18n';
import { describeRowError, describeShared } from '../i18n/errors';
import { RowsTable } from './RowsTable';

/** The longest list of unmatched photo names said in one sentence (the rest are counted). */
const NAMES_SAID = 10;

const wrap = { overflowWrap: 'anywhere' } as const;

/**
 * What became of an import's ZIP of photos (issue 30): rows saved without their photo, in the
 * person form's words; entries that were not read, each with why; photos that matched no row.
 */
export function PhotoReport({ report }: { report: ImportPhotosReport | null }) {
  if (report === null) return null;
  return (
    <>
      {report.withoutPhotoCount > 0 && <WithoutPhoto report={report} />}
      {report.refusedEntryCount > 0 && <RefusedEntries report={report} />}
      {report.unmatchedCount > 0 && <Unmatched report={report} />}
    </>
  );
}

function WithoutPhoto({ report }: { report: ImportPhotosReport }) {
  const t = useT();
  const title = t('import.withoutPhoto', { count: report.withoutPhotoCount });
  return (
    <Stack gap="xs" data-testid="import-without-photo">
      <Title order={3}>{title}</Title>
      <RowsTable
        label={title}
        rows={report.withoutPhoto}
        why={(note) => t('people.form.savedWithoutPhoto', { problem: describeRowError(note) })}
      />
    </Stack>
  );
}

function RefusedEntries({ report }: { report: ImportPhotosReport }) {
  const t = useT();
  const title = t('import.entriesNotRead', { count: report.refusedEntryCount });
  return (
    <Stack gap="xs" data-testid="import-refused-entries">
      <Title order={3}>{title}</Title>
      <Table.ScrollContainer minWidth={360} mah={420}>
        <Table striped aria-label={title} layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="40%">{t('import.entry')}</Table.Th>
              <Table.Th>{t('import.why')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.refusedEntries.map((refused, i) => (
              <Table.Tr key={`${i}-${refused.entry}`}>
                <Table.Td style={wrap}>{refused.entry}</Table.Td>
                <Table.Td style={wrap}>
                  {refused.reasons.map((r) => describeShared(r.code, r.params)).join(' ')}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

function Unmatched({ report }: { report: ImportPhotosReport }) {
  const t = useT();
  const said = report.unmatched.slice(0, NAMES_SAID);
  const more = report.unmatchedCount - said.length;
  return (
    <Text data-testid="import-unmatched" style={wrap}>
      {t('import.unmatched', {
        count: report.unmatchedCount,
        names: said.join(t('import.nameSeparator')),
        more,
      })}
    </Text>
  );
}
