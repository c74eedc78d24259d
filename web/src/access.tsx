import { Alert, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useT } from './i18n';
import { Link } from './nav';
import { useSession } from './session';
import { useDocumentTitle } from './useDocumentTitle';

/** Whether the signed-in role may change data (operators read only). */
export function useCanEdit(): boolean {
  const { state } = useSession();
  return state.status === 'signedIn' && state.user.role !== 'operator';
}

/**
 * Whether the signed-in administrator is a superadmin: what every organization shares (the
 * panel route) is theirs alone to see and change.
 */
export function useIsSuperadmin(): boolean {
  const { state } = useSession();
  return state.status === 'signedIn' && state.user.role === 'superadmin';
}

/**
 * What an operator reads on a page that is not for their role: what the page is for, and what
 * they can do instead (a text for the page, not a general rule with nothing to read beside it).
 * Catalog keys.
 */
export const notAllowedText = {
  change: 'access.change',
  administrators: 'access.administrators',
  editPerson: 'access.editPerson',
} as const;

/** Renders the page only for roles that may change data. */
export function RequireEdit({
  children,
  reason = 'change',
}: {
  children: ReactNode;
  reason?: keyof typeof notAllowedText;
}) {
  return useCanEdit() ? children : <NotAllowed reason={reason} />;
}

export function NotFound() {
  const t = useT();
  useDocumentTitle(t('access.notFound'));
  return (
    <>
      <Title order={1}>{t('access.notFound')}</Title>
      <Link to="/">{t('access.home')}</Link>
    </>
  );
}

export function NotAllowed({ reason = 'change' }: { reason?: keyof typeof notAllowedText }) {
  const t = useT();
  useDocumentTitle(t('access.notAllowed'));
  return (
    <>
      <Title order={1}>{t('access.notAllowed')}</Title>
      <Alert color="yellow" data-testid="not-allowed" maw={640}>
        {t(notAllowedText[reason])}
      </Alert>
      <Link to="/">{t('access.dashboard')}</Link>
    </>
  );
}
