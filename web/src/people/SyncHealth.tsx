import { Badge } from '@mantine/core';
import { t, useT } from '../i18n';
import type { PersonSyncCounts } from '../sync/api';

/**
 * A person's synchronization in one badge: failures first, then waiting, then waiting for a
 * photo (no failure: it runs once a photo is added), then up to date.
 */
export function SyncHealth({ counts }: { counts: PersonSyncCounts | undefined }) {
  useT();
  const [text, color] = describe(counts);
  return (
    <Badge color={color} variant="light" data-testid="person-sync">
      {text}
    </Badge>
  );
}

function describe(counts: PersonSyncCounts | undefined): [string, string] {
  if (counts === undefined) return [t('people.health.noDevice'), 'gray'];
  const total =
    counts.pending + counts.running + counts.succeeded + counts.failed + counts.waitingPhoto;
  if (counts.failed > 0) {
    return [t('people.health.failed', { count: counts.failed, total }), 'red'];
  }
  const waiting = counts.pending + counts.running;
  if (waiting > 0) return [t('people.health.waiting', { count: waiting, total }), 'yellow'];
  if (counts.waitingPhoto > 0) {
    return [t('syncCounts.personWaitingPhoto', { count: counts.waitingPhoto, total }), 'gray'];
  }
  return [t('people.health.upToDate', { total }), 'green'];
}
