import type { CentralClient } from './clients/central-client.js';
import { DETAILS_WITHHELD, ReachError, UNEXPECTED_ANSWER } from './clients/http.js';
import { accountLimits, centralProblem, centralReachWords } from './texts.js';

/**
 * Why the central address gives no usable heartbeat, as a code and values: the header, the
 * central panel and the report step word it, each in the language it is read in, so the header
 * states one truth. Codes:
 * - `bad_address` {url}: not an address the console can call;
 * - `nothing_answers` {host, cause}: no answer at all (cause: a socket code, or `other`);
 * - `no_answer_in_time` {host, seconds}: the call got no answer within the heartbeat's budget;
 * - `not_central` {host, status, answer, ms}: something answers, but not as an svc central
 *   service (another web server, a page, JSON of another shape);
 * - `gateway_error` {host, status, ms}: the web server in front answers 502/503/504 without an
 *   svc answer: the central service behind it does not answer;
 * - `service_error` {host, status, error, ms}: the central service answers with an error;
 * - `details_withheld` {host, status, ms, signedIn}: an svc central service answers, but only
 *   its heartbeat's summary: this laptop is outside its trusted networks, and not signed in.
 */
export interface CentralReach {
  code:
    | 'bad_address'
    | 'nothing_answers'
    | 'no_answer_in_time'
    | 'not_central'
    | 'gateway_error'
    | 'service_error'
    | 'details_withheld';
  params: Record<string, string | number>;
}

/** The statuses a web server in front of the central service answers when it is not reached. */
const GATEWAY = new Set([502, 503, 504]);

/** What a failed heartbeat met, as a code and values. */
export function reachOf(err: unknown, host: string): CentralReach {
  if (!(err instanceof ReachError)) {
    return { code: 'nothing_answers', params: { host, cause: 'other' } };
  }
  const f = err.facts;
  if (err.status === null) {
    return f.cause === 'timeout'
      ? { code: 'no_answer_in_time', params: { host, seconds: f.seconds ?? 0 } }
      : { code: 'nothing_answers', params: { host, cause: f.cause ?? 'other' } };
  }
  const ms = Math.round(f.elapsedMs ?? 0);
  if (err.code === DETAILS_WITHHELD) {
    return {
      code: 'details_withheld',
      params: { host, status: err.status, ms, signedIn: f.params?.signedIn ?? 0 },
    };
  }
  if (err.code !== UNEXPECTED_ANSWER && err.code !== null) {
    return {
      code: 'service_error',
      params: { host, status: err.status, error: err.code, ms, ...prefixed(f.params) },
    };
  }
  if (GATEWAY.has(err.status)) {
    return { code: 'gateway_error', params: { host, status: err.status, ms } };
  }
  return {
    code: 'not_central',
    params: { host, status: err.status, answer: f.answer ?? 'status', ms },
  };
}

/** The error's own params, kept apart from the reach's (`p_<name>`). */
const prefixed = (params: Record<string, string | number> | undefined) =>
  Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [`p_${k}`, v]));

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
  /** Why there is no usable heartbeat, as a code and values; null when it answers. */
  reach: CentralReach | null;
  /** The same, short, in the console's language when measured; null when it answers. */
  error: string | null;
  /** What to check when it does not answer, in words. */
  advice: string | null;
  /** What the central service says is wrong when its heartbeat has state 0. */
  problem: string | null;
  /**
   * The central service's last refusal of this console (a sign-in, a push, a report), if any:
   * its words when it came, and its code and values, so it is said in the language read now.
   */
  refusal: {
    reason: string;
    at: string;
    code?: string | null;
    params?: Record<string, string | number>;
  } | null;
  /** The last sign-in was refused for want of the account's two-factor code: ask for it. */
  codeRequired: boolean;
}

/** A heartbeat slower than this counts as no answer: the live header must turn red in time. */
const HEARTBEAT_TIMEOUT_MS = 3_000;

/**
 * The central service as the live header and the central panel show it, measured now: its
 * heartbeat (or, when none comes, what happened at that address and what to check), the
 * signed-in account and what it cannot do, and the last refusal kept by the workbench.
 */
export async function measureCentral(
  c: CentralClient | null,
  kept: {
    now: number;
    /** Why there is no client: the address given cannot be called. */
    badAddress: string | null;
    refusal: CentralState['refusal'];
    codeRequired: boolean;
  },
): Promise<CentralState> {
  const checkedAt = new Date(kept.now).toISOString();
  if (!c) {
    const reach: CentralReach | null =
      kept.badAddress === null ? null : { code: 'bad_address', params: { url: kept.badAddress } };
    const words = reach && centralReachWords(reach);
    return {
      url: null,
      user: null,
      heartbeat: null,
      checkedAt,
      reach,
      error: words?.reason ?? null,
      advice: words?.advice ?? null,
      problem: null,
      refusal: null,
      codeRequired: false,
    };
  }
  let heartbeat: CentralState['heartbeat'] = null;
  let reach: CentralReach | null = null;
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
    reach = reachOf(err, new URL(c.baseUrl).host);
  }
  // Said for a person, from the same code the header words: what happened, and what to check.
  const words = reach && centralReachWords(reach);
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
    reach,
    error: words?.reason ?? null,
    advice: words?.advice ?? null,
    problem,
    refusal: kept.refusal,
    codeRequired: kept.codeRequired,
  };
}
