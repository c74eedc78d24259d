import { Badge } from '@mantine/core';
import type { PersonSyncCounts } from '../sync/api';

/** A person's synchronization in one badge: failures first, then waiting, then up to date. */
export function SyncHealth({ counts }: { counts: PersonSyncCounts | undefined }) {
  const [text, color] = describe(counts);
  return (
    <Badge color={color} variant="light" data-testid="person-sync">
      {text}
    </Badge>
  );
}

function describe(counts: PersonSyncCounts | undefined): [string, string] {
  if (counts === undefined) return ['No device', 'gray'];
  const total = counts.pending + counts.running + counts.succeeded + counts.failed;
  const devices = `${total} ${total === 1 ? 'device' : 'devices'}`;
  if (counts.failed > 0) return [`Failed on ${counts.failed} of ${devices}`, 'red'];
  const waiting = counts.pending + counts.running;
  if (waiting > 0) return [`Waiting on ${waiting} of ${devices}`, 'yellow'];
  return [`Up to date on ${devices}`, 'green'];
}
