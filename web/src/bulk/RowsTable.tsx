import { Table } from '@mantine/core';
import type { ImportRowError } from '@svc/shared';
import { useT } from '../i18n';
import { describeRowError } from '../i18n/errors';

const wrap = { overflowWrap: 'anywhere' } as const;

/**
 * Rows of an import file with what became of each: row, ID number and why, in fixed columns
 * that fit a phone (the reason wraps in its column instead of running off the right edge).
 */
export function RowsTable({
  label,
  rows,
  why = describeRowError,
  rowTestId,
}: {
  label: string;
  rows: readonly ImportRowError[];
  /** The third column's words for a row (by default its reasons, said). */
  why?: (row: ImportRowError) => string;
  rowTestId?: string;
}) {
  const t = useT();
  return (
    <Table.ScrollContainer minWidth={300} mah={420}>
      <Table striped aria-label={label} layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={56}>{t('import.row')}</Table.Th>
            <Table.Th w={120}>{t('people.idNumber')}</Table.Th>
            <Table.Th>{t('import.why')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={`${row.row}-${row.error}`} data-testid={rowTestId}>
              <Table.Td>{row.row === 0 ? t('import.file') : row.row}</Table.Td>
              <Table.Td style={wrap}>{row.idNumber ?? '—'}</Table.Td>
              <Table.Td style={wrap}>{why(row)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
