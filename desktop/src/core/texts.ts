import type { ServiceWarning } from '@svc/shared';
import type { CentralState } from './api.js';
import { language, list, sharedError, t, tIn, type Params } from './i18n.js';
import type { Language } from './language.js';

/**
 * The console's sentences built from state and codes, for the core and the renderer alike. The
 * words themselves live in the catalogs (`src/locales/{en,zh-CN}.json`, through `t`); this
 * module only chooses which sentence fits and fills in its values. It imports nothing but the
 * catalogs and a type, so the renderer can use it too.
 */

/** A layer's title in the console's language, by its stable id. */
export function layerTitle(id: string, fallback = id): string {
  return t(`layers.${id}`, { defaultValue: fallback });
}

// --- The report step. ---

/** `@svc/shared`'s REDACTED marker (kept in what is recorded), as the screens say it. */
export const redactedSaid = (text: string) => text.split('[redacted]').join(t('report.redacted'));

export const OUTDATED = {
  layerRun: (id: string) => t('reportStep.outdated.layerRun', { title: layerTitle(id) }),
  confirmed: (id: string) => t('reportStep.outdated.confirmed', { title: layerTitle(id) }),
  download: () => t('reportStep.outdated.download'),
  proofChanged: (ids: readonly string[]) =>
    t('reportStep.outdated.proofChanged', { ids: list(ids), title: layerTitle('terminals') }),
};

/** Layers never run, named when Finish is refused (the technician has not agreed yet). */
export const notRunRefused = (ids: readonly string[]) =>
  t('reportStep.notRunRefused', { titles: list(ids.map((id) => layerTitle(id))) });

// --- The central service: refusals, account limits, reachability. ---

/** What the central service's refusal codes mean for the technician, in the console's words. */
const CENTRAL_REFUSALS = new Set([
  'password_change_required',
  'forbidden',
  'session_expired',
  'unauthorized',
  'untrusted_network',
  'csrf',
  'invalid_credentials',
  'two_factor_invalid',
  'rate_limited',
]);

/** Removes the API paths some central messages carry ("(POST /api/auth/password)"). */
export function withoutApiPaths(message: string): string {
  return message
    .replace(/\s*\((?:GET|POST|PUT|PATCH|DELETE)?\s*\/api\/[^)]*\)/g, '')
    .replace(/(?:GET|POST|PUT|PATCH|DELETE)\s+\/api\/\S+/g, t('central.theService'))
    .trim();
}

/** Whether the console has its own sentence for this refusal code. */
export function knownRefusal(code: string | null): boolean {
  return code !== null && CENTRAL_REFUSALS.has(code);
}

/**
 * A central refusal in words: the console's sentence for a code it knows, else the shared text
 * of the code (the site's words, `@svc/shared`), else the service's own message (a code newer
 * than this console).
 */
export function centralRefusal(
  code: string | null,
  message: string,
  params: Record<string, string | number> = {},
): string {
  if (code !== null && knownRefusal(code)) return t(`central.refusals.${code}`);
  // The site's sentence, said as the console's refusals are: inside another, no full stop.
  const shared = code !== null ? sharedError(code, params) : null;
  return shared !== null ? shared.replace(/[.。]$/, '') : withoutApiPaths(message);
}

/** A refusal the console has no sentence of its own for, with the answer's HTTP status. */
export const withStatus = (reason: string, status: number) =>
  t('central.withStatus', { reason, status });

/** A reach's code and values (`CentralState.reach`), as the central-state module makes it. */
export interface ReachCode {
  code: string;
  params: Record<string, string | number>;
}

/** What answered (or did not) at the central address, in the words of the reach's values. */
function reachValues(r: ReachCode): Record<string, string | number> {
  const p = r.params;
  switch (r.code) {
    case 'nothing_answers':
      return {
        ...p,
        cause: t(`errors.reach.${String(p.cause)}`, { defaultValue: t('errors.reach.other') }),
      };
    case 'not_central':
      return { ...p, what: t(`central.reach.answer.${String(p.answer)}`, p) };
    case 'service_error': {
      const own = Object.fromEntries(
        Object.entries(p)
          .filter(([k]) => k.startsWith('p_'))
          .map(([k, v]) => [k.slice(2), v]),
      );
      const code = String(p.error);
      const said = knownRefusal(code)
        ? t(`central.refusals.${code}`)
        : (sharedError(code, own) ?? t('central.reach.errorCode', { code }));
      // A sentence inside the header's: without its own full stop.
      return { ...p, error: said.replace(/[.。]$/, '') };
    }
    default:
      return p;
  }
}

/**
 * Why the central address gives no usable heartbeat, in words, from its code and values: what
 * happened (short), the header's sentence (state, and the round trip when something answered)
 * and what to check (the central panel). One code, one truth: never "not answering" for an
 * address where something answered.
 */
export function centralReachWords(r: ReachCode): {
  reason: string;
  header: string;
  advice: string;
} {
  const known = [
    'bad_address',
    'nothing_answers',
    'no_answer_in_time',
    'not_central',
    'gateway_error',
    'service_error',
    'details_withheld',
  ];
  const code = known.includes(r.code) ? r.code : 'nothing_answers';
  const values = reachValues({ code, params: r.params });
  const reason = t(`central.reach.${code}.reason`, values);
  return {
    reason,
    header: t(`central.reach.${code}.header`, { ...values, reason }),
    advice: t(`central.reach.${code}.advice`, values),
  };
}

/**
 * The central service's warnings in the console's words, by code and values (issue #34); the
 * service's English only for a code this console does not know, or from an older service that
 * sends the strings alone.
 */
export function centralWarnings(hb: {
  warnings: readonly string[];
  warningDetails?: readonly ServiceWarning[] | undefined;
}): string[] {
  if (hb.warningDetails === undefined) return [...hb.warnings];
  return hb.warningDetails.map((w) => {
    const more = Number(w.params.more ?? 0);
    const devices = typeof w.params.devices === 'string' ? list(w.params.devices.split(', ')) : '';
    return t(`central.warnings.${w.code}`, {
      ...w.params,
      devices,
      more: more > 0 ? t('central.warnings.more', { count: more }) : '',
      defaultValue: w.message,
    });
  });
}

/**
 * Why the central service could not push to a terminal, in the console's words from the
 * answer's `errorDetail` (issue 34); its English `error` from an older service or for a code
 * this console does not know.
 */
export function centralPushError(answer: {
  error: string;
  errorDetail?: ServiceWarning | undefined;
}): string {
  return answer.errorDetail === undefined ? answer.error : pushFailure(answer.errorDetail);
}

/**
 * A push's failure by its code and values (`errorDetail`, the central service's codes, which a
 * direct push uses too for what a terminal answered), in the console's language or `lng`; the
 * detail's own message for a code this console does not know.
 */
export function pushFailure(detail: ServiceWarning, lng?: Language): string {
  const say = (key: string, params: Params) => (lng ? tIn(lng, key, params) : t(key, params));
  const p = detail.params;
  switch (detail.code) {
    case 'terminal_unreachable':
      return say('errors.reach.at', {
        what: say(`errors.reach.${String(p.cause)}`, {
          defaultValue: say('errors.reach.other', {}),
        }),
        where: String(p.where),
      });
    case 'terminal_no_answer':
      return say('errors.reach.timeout', p);
    case 'terminal_key_needed':
      return say('errors.terminal.keyNeeded', p);
    case 'terminal_key_refused':
      return say('errors.terminal.keyRefused', p);
    case 'terminal_http_status':
      return say('errors.terminal.status', p);
    case 'terminal_not_json':
      return say('errors.terminal.notJson', p);
    case 'terminal_shape':
      return say('errors.terminal.shape', p);
    default:
      return say(`push.central.${detail.code}`, { ...p, defaultValue: detail.message });
  }
}

/** A heartbeat's state 0 in words: what the central service says is wrong. */
export function centralProblem(hb: {
  database: { state: string; message?: string | undefined };
  workers: Record<string, string>;
  warnings: string[];
  warningDetails?: readonly ServiceWarning[] | undefined;
}): string {
  const state = t(`evidence.states.${hb.database.state}`, { defaultValue: hb.database.state });
  const stopped = Object.entries(hb.workers)
    .filter(([, state]) => state === 'stopped')
    .map(([name]) => name);
  return [
    hb.database.state !== 'up'
      ? hb.database.message
        ? t('central.problem.databaseWhy', {
            state,
            // The service's English follows from the state: said from the catalog (issue 34).
            message: t(`central.problem.dbMessage.${hb.database.state}`, {
              defaultValue: hb.database.message,
            }),
          })
        : t('central.problem.database', { state })
      : null,
    stopped.length > 0 ? t('central.problem.stopped', { names: list(stopped) }) : null,
    ...centralWarnings(hb),
  ]
    .filter((p): p is string => p !== null)
    .join(t('report.partSeparator'));
}

/** What an account of this role (or with a pending password change) cannot do from the console. */
export function accountLimits(user: { role: string; mustChangePassword: boolean }): string[] {
  if (user.mustChangePassword) return [t('central.limits.mustChangePassword')];
  if (user.role === 'operator') return [t('central.limits.operator')];
  return [];
}

/** A role's name in the console's language (an unknown role keeps its code). */
export const roleName = (role: string) => t(`roles.${role}`, { defaultValue: role });

/**
 * Why a hand confirmation cannot be recorded on this layer now, or null when it can: only a
 * layer with a manual part whose automated checks ran and held.
 */
export function confirmRefusal(layer: {
  id: string;
  manualPrompt: string | null;
  ranAt: string | null;
  error: string | null;
  evidence: { ok: boolean }[];
}): string | null {
  const title = layerTitle(layer.id);
  if (layer.manualPrompt === null) return t('acceptance.confirm.nothing', { title });
  if (layer.ranAt === null) return t('acceptance.confirm.runFirst', { title });
  if (layer.error !== null || layer.evidence.length === 0 || !layer.evidence.every((e) => e.ok)) {
    return t('acceptance.confirm.failed', { title });
  }
  return null;
}

// --- Times. ---

/** A time of day on this laptop's clock ("14:03:05"), for sentences. */
export function localClock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString('en-GB', { hour12: false });
}

/**
 * An ISO instant in the laptop's local time, to the second ("2026/11/28 14:03:05" in zh-CN), in
 * the console's language or the one given (the report's).
 */
export function localTime(iso: string | null | undefined, lang: string = language()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(lang, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
}

/** A time of day only ("14:03:05"), for things that happened today. */
export function localTimeOfDay(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleTimeString(language(), {
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      });
}

// --- The push. ---

export const PUSH_WORDS = {
  notTried: () => t('push.notTried'),
  notSignedIn: (url: string) => t('push.notSignedIn', { url }),
  refused: (reason: string) => t('push.refused', { reason }),
  claimedTwice: (id: string) => t('push.claimedTwice', { id }),
  centralFailed: (reason: string) => t('push.centralFailed', { reason }),
  noAnswer: () => t('push.noAnswer'),
  savedThroughCentral: (url: string) => t('push.savedThroughCentral', { url }),
  savedDirect: (at: string | null) =>
    at ? t('push.savedDirectAt', { at: localClock(at) }) : t('push.savedDirect'),
  readsBack: (url: string) => t('push.readsBack', { url }),
  centralDiffers: (read: string, pushed: string) => t('push.centralDiffers', { read, pushed }),
  panelDiffers: (read: string, pushed: string) => t('push.panelDiffers', { read, pushed }),
  readBackFailed: (reason: string) => t('push.readBackFailed', { reason }),
  cannotProve: () => t('push.cannotProve'),
  checkedInAt: (at: string) => t('push.checkedInAt', { at: localClock(at) }),
  notListed: () => t('push.notListed'),
  olderCheckin: (at: string) => t('push.olderCheckin', { at: localClock(at) }),
  noCheckinYet: () => t('push.noCheckinYet'),
  nodeListFailed: (reason: string) => t('push.nodeListFailed', { reason }),
  noCheckin: (seconds: number, last: string) => t('push.noCheckin', { seconds, last }),
};

// --- The live header. ---

export type Health = 'ok' | 'warn' | 'bad' | 'none';

/** A heartbeat round trip above this is said to be slow (amber), though it answered. */
export const SLOW_ROUND_TRIP_MS = 1_000;

/** The last refusal in words: from its code when it has one (the language read now). */
function refusalSaid(r: NonNullable<CentralState['refusal']>): string {
  return r.code ? centralRefusal(r.code, r.reason, r.params) : r.reason;
}

/**
 * The live header's words for the central service: one state, with the round trip whenever
 * something answered, and the last refusal, in plain words. Made from codes and values, so the
 * header and the central panel say the same thing, in the language read now.
 */
export function centralHealth(c: CentralState | undefined): { health: Health; text: string } {
  if (c?.reach) {
    // An svc central service that answers but keeps its state for its trusted networks: not
    // down, and not "no central service" either; a sign-in is what it needs.
    const health = c.reach.code === 'details_withheld' ? 'warn' : 'bad';
    return { health, text: centralReachWords(c.reach).header };
  }
  if (!c?.url) return { health: 'none', text: t('central.health.none') };
  if (!c.heartbeat) return { health: 'bad', text: t('central.health.notAnswering') };
  const ms = c.heartbeat.roundTripMs;
  if (c.heartbeat.state !== 1) {
    return {
      health: 'bad',
      text: c.problem
        ? t('central.health.problemWhy', { problem: c.problem, ms })
        : t('central.health.problem', { ms }),
    };
  }
  if (c.refusal) {
    return {
      health: 'warn',
      text: t('central.health.refused', { ms, reason: refusalSaid(c.refusal) }),
    };
  }
  if (ms > SLOW_ROUND_TRIP_MS) return { health: 'warn', text: t('central.health.slow', { ms }) };
  return { health: 'ok', text: t('central.health.ok', { ms }) };
}

// --- The terminal list. ---

const sameAddress = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The terminal announces a saved central address other than the one its push proved. */
export function changedSince(
  terminal: { central: string | null },
  push: { centralUrl: string },
): boolean {
  return terminal.central !== null && !sameAddress(terminal.central, push.centralUrl);
}

export const TERMINAL_WORDS = {
  changedSince: (proven: string, now: string) =>
    now ? t('proof.changedSince', { proven, now }) : t('proof.changedSinceNone', { proven }),
};
