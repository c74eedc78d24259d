import { Alert } from '@mantine/core';
import { keys, useApiQuery } from '../query';
import { Link } from '../nav';
import { changedParts, listChanges } from './api';

/** On a person's page: a re-enrollment of this person waits for review (at most one can). */
export function PendingChangeNotice({ personId }: { personId: string }) {
  const pending = useApiQuery([...keys.enrollmentChanges, 'person', personId], (signal) =>
    listChanges({ state: 'pending', personId, page: 1, pageSize: 1 }, signal),
  );
  const change = pending.data?.items[0];
  if (change === undefined) return null;
  return (
    <Alert color="yellow" title="A change waits for review" data-testid="pending-change">
      Enrollment terminal {change.terminalId} sent another {changedParts(change).join(' and ')} for
      this person. Nothing changes until an administrator decides.{' '}
      <Link to="/enrollment/changes/$id" params={{ id: change.id }}>
        Review the change
      </Link>
    </Alert>
  );
}
