/**
 * The synchronization's tuning knobs, in one place, each with the reason for its value. The
 * figures behind them are in bench/README.md and docs/decisions/; the code reads them from here.
 */

// ── Worker ────────────────────────────────────────────────────────────────────────────────

/** Pushes in flight per device: enough to hide a device's round trip, few enough not to queue on it. */
export const PUSHES_PER_DEVICE = 4;
/** Devices served at once: every device of a site by default, a device left waiting holds its priority tasks too. */
export const DEVICES_IN_PARALLEL = 64;
/**
 * How long a device's stream reads before it ends and is started again with its row, key and
 * address read anew (a device moved or re-keyed is noticed within this). Not SVC_PUSH_INTERVAL:
 * that is only how often an idle worker looks for work.
 */
export const STREAM_MS = 15_000;
/** A pass asked for without a budget (a test, a one-off run) pushes for at most this long. */
export const RUN_BUDGET_MS = 60_000;
/** A full plan at least this often even when the fingerprint did not change (what it cannot see). */
export const FULL_PLAN_EVERY_MS = 10 * 60_000;
/** Periodic reconciliation of every online device this long after the previous pass ended. */
export const RECONCILE_EVERY_MS = 10 * 60_000;

// ── Planning ──────────────────────────────────────────────────────────────────────────────

/**
 * While devices push, changes are looked for this often (at once after a kick), so one person
 * edited during a long backfill reaches the priority lane instead of waiting for it.
 */
export const REPLAN_CHECK_MS = 1_000;
/**
 * Devices noticed while a plan runs are planned together once none has been noticed for this
 * long (at most DEVICE_GATHER_MAX_MS after the first): a site's doors registered one after
 * another then share their plan statements.
 */
export const DEVICE_GATHER_MS = 1_000;
export const DEVICE_GATHER_MAX_MS = 5_000;
/** A plan changing more than this many people of a device goes to the bulk lane; smaller ones are priority. */
export const BULK_THRESHOLD = 50;
/** A device with at most this many tasks is compared person by person instead of reading its whole desired set. */
export const FEW_TASKS = 1_000;
/** Most people a people plan takes; beyond this (an import) the full plan is cheaper. */
export const PEOPLE_PLAN_MAX = 1_000;
/** Tasks per UPDATE of existing tasks (bound parameters: SQLite's limit). */
export const UPDATE_CHUNK = 1_000;
/** Rows per INSERT of new tasks (values inlined, no parameter limit): one statement per chunk of a new device. */
export const INSERT_CHUNK = 5_000;
/** Edits stamped this long before a read may still commit after it: recent-change reads reach back this far. */
export const COMMIT_MARGIN_MS = 5_000;
/** The worker's fingerprint reads every person at least this often (between, only recent stamps). */
export const FINGERPRINT_FULL_READ_MS = 10_000;

// ── Delivery ──────────────────────────────────────────────────────────────────────────────

/** Tasks a device's stream reads at a time, per push in flight: the next read overlaps the pushes. */
export const READ_PER_PUSH = 50;
/**
 * How long a process holds a device unless renewed: a process killed mid-push, or one that lost
 * the database, frees its devices after this.
 */
export const LEASE_MS = 20_000;
/** Held devices are extended this often (well inside LEASE_MS). */
export const RENEW_EVERY_MS = Math.floor(LEASE_MS / 4);
/** After this many tries a task is `failed` (retry from the API). */
export const MAX_ATTEMPTS = 8;
/** Backoff between tries, doubled each time with jitter: a device restarting is retried soon, a dead one rarely. */
export const BACKOFF_MIN_MS = 1_000;
export const BACKOFF_MAX_MS = 5 * 60_000;
/** Untried tasks of a device that stopped answering wait this long before they are read again. */
export const RELEASE_PAUSE_MS = 5_000;
/** A task a push handed back to the planner waits this long: its stream does not spin on it. */
export const RELEASED_TASK_PAUSE_MS = 1_000;
/**
 * Tasks failed per pass when a device's stored key is missing or malformed (none can reach it):
 * bounded so one pass does not hold the connection; the rest fail in the next pass.
 */
export const KEY_FAILURE_BATCH = 1_000;
/**
 * Most successes written by one statement: the writer waits its turn behind reads and plans
 * once per statement, and with fewer per statement fell behind the pushes on SQLite.
 */
export const SUCCESS_STATEMENT_MAX = 2_000;
/** Bulk successes are written within this (urgent ones at once): one commit per many pushes. */
export const SUCCESS_DELAY_MS = 100;
/** Tries of one success write that loses deadlocks (MySQL); ten span about a second. */
export const SUCCESS_WRITE_TRIES = 10;
/** People kept per run (plain rows): a backfill pushes each to every device, not in the same order. */
export const PEOPLE_CACHE = 100_000;
/** People read per query. */
export const PEOPLE_QUERY = 500;
/** Photos kept per run (base64 characters); a run that reads more starts over. */
export const PHOTO_CACHE_CHARS = 64 * 1024 * 1024;
/** Photo characters the PUT bodies kept may hold (~6,400 people of 20 KB photos; twice that in memory with their JSON). */
export const BODY_CACHE_CHARS = 128 * 1024 * 1024;

// ── Reconciliation ────────────────────────────────────────────────────────────────────────

/** Read-backs in flight per device. */
export const RECONCILE_PER_DEVICE = 4;
/** Tasks read per page: a device of 100,000 people is not held in memory at once. */
export const RECONCILE_PAGE = 1_000;
