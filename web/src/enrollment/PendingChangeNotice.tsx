import { Alert } from '@mantine/core';
import { keys, useApiQuery } from '../query';
import { Link } from '../nav';
import { useT } from '../i18n';
import { changedText, listChanges } from './api';

/** On a person's page: a re-enrollment of this person waits for review (at most one can). */
export function PendingChangeNotice({ personId }: { personId: string }) {
  const t = useT();
  const pending = useApiQuery([...keys.enrollmentChanges, 'person', personId], (signal) =>
    listChanges({ state: 'pending', personId, page: 1, pageSize: 1 }, signal),
  );
  const change = pending.data?.items[0];
  if (change === undefined) return null;
  return (
    <Alert color="yellow" title={t('enrollment.waits')} data-testid="pending-change">
      {t('enrollment.waitsText', { terminal: change.terminalId, parts: changedText(change) })}{' '}
      <Link to="/enrollment/changes/$id" params={{ id: change.id }}>
        {t('enrollment.review')}
      </Link>
    </Alert>
  );
}
