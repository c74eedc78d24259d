import type { CentralClient } from './clients/central-client.js';
import { ReachError, UNEXPECTED_ANSWER } from './clients/http.js';
import { t } from './i18n.js';
import { accountLimits, centralProblem, centralUnreachable } from './texts.js';

export interface CentralState {
  url: string | null;
  user: {
    username: string;
    role: string;
    mustChangePassword: boolean;
    /** What this account cannot do from the console, in words (empty: nothing). */
    limits: string[];
  } | null;
  heartbeat: {
    state: 0 | 1;
    version: string;
    responseTimeMs: number;
    /** The heartbeat's round trip from this laptop. */
    roundTripMs: number;
  } | null;
  /** When this state was measured (ISO-8601). */
  checkedAt: string;
  /** Why there is no usable answer, short (for the header); null when it answers. */
  error: string | null;
  /** What to check when it does not answer, in words. */
  advice: string | null;
  /** What the central service says is wrong when its heartbeat has state 0. */
  problem: string | null;
  /** The central service's last refusal of this console (a sign-in, a push, a report), if any. */
  refusal: { reason: string; at: string } | null;
  /** The last sign-in was refused for want of the account's two-factor code: ask for it. */
  codeRequired: boolean;
}

/** A heartbeat slower than this counts as no answer: the live header must turn red in time. */
const HEARTBEAT_TIMEOUT_MS = 3_000;

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
/** "connection refused at 10.0.0.5:80" → "connection refused" (the address is said apart). */
const causeOf = (message: string, host: string) =>
  message.replace(t('errors.reach.at', { what: '', where: host }), '').trim() || message;

/**
 * The central service as the live header and the central panel show it, measured now: its
 * heartbeat (or, when none comes, what happened at that address and what to check), the
 * signed-in account and what it cannot do, and the last refusal kept by the workbench.
 */
export async function measureCentral(
  c: CentralClient | null,
  kept: {
    now: number;
    error: string | null;
    refusal: CentralState['refusal'];
    codeRequired: boolean;
  },
): Promise<CentralState> {
  const checkedAt = new Date(kept.now).toISOString();
  if (!c) {
    return {
      url: null,
      user: null,
      heartbeat: null,
      checkedAt,
      error: kept.error,
      advice: null,
      problem: null,
      refusal: null,
      codeRequired: false,
    };
  }
  let heartbeat: CentralState['heartbeat'] = null;
  let error: string | null = null;
  let advice: string | null = null;
  let problem: string | null = null;
  try {
    const hb = await c.heartbeat(HEARTBEAT_TIMEOUT_MS);
    heartbeat = {
      state: hb.value.state,
      version: hb.value.version,
      responseTimeMs: hb.value.responseTimeMs,
      roundTripMs: Math.round(hb.elapsedMs),
    };
    if (hb.value.state !== 1) problem = centralProblem(hb.value);
  } catch (err) {
    // Said for a person: what happened at that address, and what to check.
    const reached =
      err instanceof ReachError && (err.status !== null || err.code === UNEXPECTED_ANSWER);
    const host = new URL(c.baseUrl).host;
    const cause = err instanceof ReachError && !reached ? causeOf(err.message, host) : why(err);
    ({ reason: error, advice } = centralUnreachable(host, cause, reached));
  }
  const u = c.user;
  return {
    url: c.baseUrl,
    user: u && {
      username: u.username,
      role: u.role,
      mustChangePassword: u.mustChangePassword,
      limits: accountLimits(u),
    },
    heartbeat,
    checkedAt,
    error,
    advice,
    problem,
    refusal: kept.refusal,
    codeRequired: kept.codeRequired,
  };
}
