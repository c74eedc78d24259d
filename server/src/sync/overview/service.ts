import type { PeopleSyncOut } from '@svc/shared';
import type { AppContext } from '../../context.js';
import { taskStatesOf, type OrgScope } from './store.js';

type Counts = PeopleSyncOut['items'][number]['counts'];

/**
 * How each person's synchronization stands, counted over their tasks (one per device) by the
 * state the API shows (`running` while this process pushes it). People without a task are left
 * out: no device concerns them.
 */
export async function peopleSyncHealth(
  ctx: Pick<AppContext, 'models' | 'sync'>,
  scope: OrgScope,
  personIds: readonly string[],
): Promise<PeopleSyncOut> {
  const byPerson = new Map<string, Counts>();
  for (const task of await taskStatesOf(ctx.models, scope, personIds)) {
    let counts = byPerson.get(task.personId);
    if (!counts) {
      counts = { pending: 0, running: 0, succeeded: 0, failed: 0 };
      byPerson.set(task.personId, counts);
    }
    counts[ctx.sync.inFlight.shown(task)]++;
  }
  return { items: [...byPerson].map(([personId, counts]) => ({ personId, counts })) };
}
