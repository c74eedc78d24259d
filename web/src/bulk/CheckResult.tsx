import { Alert, Stack, Table } from '@mantine/core';
import type { ImportCheckOut } from '@svc/shared';
import { useT } from '../i18n';
import { describeRowError } from '../i18n/errors';
import { PhotoReport } from './PhotoReport';

/**
 * What the check of a whole file found: every row fine, or the rows that would be refused; then
 * what of the ZIP would not be read and the photos that match no row.
 */
export function CheckResult({ check }: { check: ImportCheckOut }) {
  return (
    <Stack gap="sm">
      <RowsVerdict check={check} />
      <PhotoReport report={check.photos} />
    </Stack>
  );
}

function RowsVerdict({ check }: { check: ImportCheckOut }) {
  const t = useT();
  if (check.failed === 0) {
    return (
      <Alert color="green" role="status" title={t('import.checkFine')} data-testid="import-check">
        {t('import.checkAll', { total: check.total })}
      </Alert>
    );
  }
  return (
    <Alert
      color="yellow"
      role="status"
      title={t('import.checkRefused', { failed: check.failed, total: check.total })}
      data-testid="import-check"
    >
      {t('import.checkFix')}
      <Table.ScrollContainer minWidth={360} mt="xs">
        <Table aria-label={t('import.wouldBeRefused')} layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={56}>{t('import.row')}</Table.Th>
              <Table.Th w={120}>{t('people.idNumber')}</Table.Th>
              <Table.Th>{t('import.why')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {check.errors.map((e) => (
              <Table.Tr key={e.row}>
                <Table.Td>{e.row}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{e.idNumber ?? '—'}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{describeRowError(e)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Alert>
  );
}
