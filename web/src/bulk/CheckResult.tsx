import { Alert, Stack } from '@mantine/core';
import type { ImportCheckOut } from '@svc/shared';
import { useT } from '../i18n';
import { PhotoReport } from './PhotoReport';
import { RowsTable } from './RowsTable';

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
      <RowsTable label={t('import.wouldBeRefused')} rows={check.errors} />
    </Alert>
  );
}
