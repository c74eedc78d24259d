import { Pagination, type PaginationProps } from '@mantine/core';
import { useT } from '../i18n';

/** Mantine's pagination with every button named (its arrows are icons only). */
export function Pages(props: PaginationProps) {
  const t = useT();
  return (
    <Pagination
      aria-label={t('pages.label')}
      getItemProps={(page) => ({ 'aria-label': t('pages.page', { page }) })}
      getControlProps={(control) => ({ 'aria-label': t(`pages.control.${control}`) })}
      {...props}
    />
  );
}
