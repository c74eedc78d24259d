import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../platform/context.js';
import { fromSqlDate } from '../../platform/db/sql-dates.js';
import { COMMIT_MARGIN_MS, FINGERPRINT_FULL_READ_MS } from '../knobs.js';
import { peopleSummary, placementRows, recentPeopleSummary } from './store/desired.js';

type Deps = Pick<AppContext, 'sync'>;

export interface Fingerprint extends Record<string, unknown> {
  /** Device id → its space and enabled flag. */
  devices: Record<string, string>;
  spaces: string;
}

/** The fingerprint's summary of people; equal when no person or access changed. */
export const peoplePart = ({ devices: _devices, spaces: _spaces, ...people }: Fingerprint) =>
  JSON.stringify(people);

/** The people's summary, read from every row, and when it can next change by itself. */
interface People {
  summary: Record<string, unknown>;
  /** The next validity boundary after `now` (someone's window opens or closes); null: none. */
  nextBoundary: Date | null;
}

async function readPeople(deps: Deps, now: Date): Promise<People> {
  const row = await peopleSummary(deps, now);
  const { next_from: from, next_until: until, ...summary } = row;
  const boundaries = [fromSqlDate(from), fromSqlDate(until)].filter((d): d is Date => d !== null);
  return {
    summary,
    nextBoundary: boundaries.length
      ? new Date(Math.min(...boundaries.map((d) => d.getTime())))
      : null,
  };
}

/** Devices and spaces: few rows, read in full every time. */
async function placement(deps: Deps): Promise<Pick<Fingerprint, 'devices' | 'spaces'>> {
  const { devices, spaces: spaceRows } = await placementRows(deps);
  const spaces = createHash('sha256');
  for (const s of spaceRows) spaces.update(`s ${s.id} ${s.parent_id}\n`);
  return {
    devices: Object.fromEntries(devices.map((d) => [d.id, `${d.space_id} ${Number(d.enabled)}`])),
    spaces: spaces.digest('base64'),
  };
}

const fingerprintOf = (people: People, place: Pick<Fingerprint, 'devices' | 'spaces'>) =>
  JSON.stringify({ ...people.summary, ...place } satisfies Fingerprint);

/**
 * A cheap summary of everything the desired state depends on; the planner skips its full
 * comparison while this is unchanged. For people, counts and sums catch deletions, `version`
 * (raised by every change a device or its access depends on) and the newest update time catch
 * edits, and the number of people inside their window at `now` catches a validity boundary
 * passing. Devices and spaces are few, so what placement depends on is kept row by row: each
 * device's space and enabled flag (a device registered, moved or re-enabled is planned on its
 * own: changesSince), and a digest of the spaces' parents. A move is seen even within the
 * same millisecond as the previous change or after the clock stepped back, which an
 * `updated_at` maximum misses. (A periodic full plan is the backstop for a change this could
 * miss.)
 */
export async function desiredFingerprint(deps: Deps, now: Date): Promise<string> {
  return fingerprintOf(await readPeople(deps, now), await placement(deps));
}

/**
 * desiredFingerprint for a worker that checks it every second during a backfill, without
 * reading every person each time (a scan of the people table every second is a share of the
 * database's work a backfill cannot spare). The people's summary is read in full at most every `fullEveryMs`, and
 * sooner when the people stamped since a little before that read changed (an edit, a creation,
 * a photo, access: each raises `version` and stamps `updated_at`), someone was deleted (the
 * deletion mark), or a validity boundary passed. Devices and spaces are read every time.
 * What only the full read sees (an edit whose stamp is older than the margin: a clock that
 * stepped back, a transaction that took longer) waits at most `fullEveryMs`. A change made
 * through the API needs no full read: it is stamped with the service clock as it is made.
 */
export class FingerprintReader {
  private last: { people: People; recent: string; anchor: Date; readAt: number } | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly fullEveryMs = FINGERPRINT_FULL_READ_MS,
  ) {}

  async read(now: Date): Promise<string> {
    const last = this.last;
    if (
      last &&
      performance.now() - last.readAt < this.fullEveryMs &&
      (last.people.nextBoundary === null || now < last.people.nextBoundary) &&
      (await recentPeopleSummary(this.deps, last.anchor)) === last.recent
    ) {
      return fingerprintOf(last.people, await placement(this.deps));
    }
    const readAt = performance.now();
    const anchor = new Date(now.getTime() - COMMIT_MARGIN_MS);
    // The range summary first: a change committed between the two reads makes the next check
    // read everything again, instead of hiding behind a summary that already counted it.
    const recent = await recentPeopleSummary(this.deps, anchor);
    const people = await readPeople(this.deps, now);
    this.last = { people, recent, anchor, readAt };
    return fingerprintOf(people, await placement(this.deps));
  }
}
