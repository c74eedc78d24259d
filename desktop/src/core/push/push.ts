import type { ServiceWarning, TerminalConfig, TerminalKind } from '@svc/shared';
import type { Clock } from '../clock.js';
import type { CentralClient } from '../clients/central-client.js';
import { ReachError } from '../clients/http.js';
import { terminalBase, type TerminalClient } from '../clients/terminal-client.js';
import { t } from '../i18n.js';
import { PUSH_WORDS, centralPushError, knownRefusal } from '../texts.js';

export interface PushTarget {
  id: string;
  kind: TerminalKind;
  address: string;
  port: number;
}

export interface PushRequest {
  centralUrl: string;
  /** For displays: where recognition events are shown (PROTOCOL §2 panelUrl). */
  panelUrl?: string;
  /** The terminal's management key, when one is set; used for this push only, never kept. */
  key?: string;
  /**
   * Straight to the terminal, without the central service: the technician's explicit choice,
   * labelled as not authorized at central. Otherwise the push goes through the central service
   * and stops at its refusal.
   */
  direct?: boolean;
}

export interface Step {
  ok: boolean;
  /** What was seen, or why it failed, in words. */
  detail: string;
  /** Never tried, because an earlier step failed: neither a proof nor a failure of its own. */
  skipped?: boolean;
  /**
   * What failed at the terminal or the central service, as a code and values: the central
   * service's `errorDetail` (its codes, which a direct push uses too for what a terminal
   * answered), or the central service's refusal code. `detail` is worded from it.
   */
  errorDetail?: ServiceWarning;
}

export interface PushResult {
  id: string;
  kind: TerminalKind;
  address: string;
  port: number;
  centralUrl: string;
  panelUrl: string | null;
  /**
   * Through the central service (which issues the check-in token; it may still report that the
   * terminal failed), straight to the terminal (the technician's explicit choice: not authorized
   * at central), or nowhere (refused, not signed in, or the central service not reached).
   */
  via: 'central' | 'direct' | 'none';
  pushedAt: string;
  saved: Step;
  readBack: Step & { config: TerminalConfig | null };
  checkedIn: Step & { at: string | null };
  ok: boolean;
  /** The central service's refusal of this push (4xx), in words, when it refused. */
  refusal?: string;
}

/** Where a terminal's push is now: saving, reading back, or waiting for its check-in. */
export type PushStep = 'saving' | 'readingBack' | 'checkingIn';

export interface PushDeps {
  /** Told as the push reaches each step, so a running batch can show where each terminal is. */
  onStep?: (step: PushStep) => void;
  terminals: TerminalClient;
  /** A client of the central service being pushed, when the console has one. */
  central: CentralClient | null;
  clock: Clock;
  /** How long to wait for the terminal's check-in at the central service. */
  checkinTimeoutMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Asks terminals to announce now (so the central service hears them too). */
  probe?: () => Promise<unknown>;
  /** How long to wait for the central service to list a terminal before pushing directly. */
  centralListWaitMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The failure's code and values, when the error carries them (a terminal's, the service's). */
function detailOf(err: unknown): { errorDetail?: ServiceWarning } {
  if (!(err instanceof ReachError)) return {};
  if (err.facts.detail) return { errorDetail: err.facts.detail };
  // The central service's own error answer (a 5xx with its code).
  if (err.code !== null && err.status !== null && !knownRefusal(err.code)) {
    return {
      errorDetail: {
        code: err.code,
        params: { ...err.facts.params, status: err.status },
        message: err.message,
      },
    };
  }
  return {};
}

/**
 * Pushes the central address to one terminal and proves it: saved (the terminal's answer),
 * read back (`GET /api/config` equals what was pushed) and checked in (the central service
 * lists a `lastCheckin` later than the push, by the central service's own clock).
 */
export async function pushWithProof(
  deps: PushDeps,
  target: PushTarget,
  request: PushRequest,
): Promise<PushResult> {
  deps.onStep?.('saving');
  const base = terminalBase(target.address, target.port);
  const central =
    deps.central && sameUrl(deps.central.baseUrl, request.centralUrl) ? deps.central : null;
  const body = {
    centralUrl: request.centralUrl,
    ...(request.panelUrl !== undefined &&
      request.panelUrl !== '' && { panelUrl: request.panelUrl }),
  };
  // The central clock before the push: a check-in stamped later is one that followed it.
  const before = central
    ? await central.heartbeat().then(
        (h) => h.value.time,
        () => null,
      )
    : null;
  const result: PushResult = {
    ...target,
    centralUrl: request.centralUrl,
    panelUrl: body.panelUrl ?? null,
    via: request.direct ? 'direct' : 'none',
    pushedAt: before ?? new Date(deps.clock.now()).toISOString(),
    saved: { ok: false, detail: PUSH_WORDS.notTried(), skipped: true },
    readBack: { ok: false, detail: PUSH_WORDS.notTried(), skipped: true, config: null },
    checkedIn: { ok: false, detail: PUSH_WORDS.notTried(), skipped: true, at: null },
    ok: false,
  };

  result.saved = await save(deps, central, target, base, request, body, result);
  if (!result.saved.ok) return result;

  deps.onStep?.('readingBack');
  try {
    const config = await deps.terminals.read(base, request.key);
    const problems: string[] = [];
    if (!sameUrl(config.centralUrl, request.centralUrl)) {
      problems.push(PUSH_WORDS.centralDiffers(config.centralUrl, request.centralUrl));
    }
    if (body.panelUrl !== undefined && !sameUrl(config.panelUrl, body.panelUrl)) {
      problems.push(PUSH_WORDS.panelDiffers(config.panelUrl, body.panelUrl));
    }
    result.readBack = {
      ok: problems.length === 0,
      detail:
        problems.length === 0
          ? PUSH_WORDS.readsBack(config.centralUrl)
          : problems.join(t('report.partSeparator')),
      config,
    };
  } catch (err) {
    result.readBack = {
      ok: false,
      detail: PUSH_WORDS.readBackFailed(why(err)),
      config: null,
      ...detailOf(err),
    };
  }
  if (!result.readBack.ok) return result;

  deps.onStep?.('checkingIn');
  result.checkedIn = await waitForCheckin(deps, central, target.id, before);
  result.ok = result.checkedIn.ok;
  return result;
}

async function save(
  deps: PushDeps,
  central: CentralClient | null,
  target: PushTarget,
  base: string,
  request: PushRequest,
  body: { centralUrl: string; panelUrl?: string },
  result: PushResult,
): Promise<Step> {
  if (request.direct) {
    try {
      const saved = await deps.terminals.push(base, body, request.key);
      return { ok: true, detail: PUSH_WORDS.savedDirect(saved.updatedAt ?? null) };
    } catch (err) {
      return { ok: false, detail: why(err), ...detailOf(err) };
    }
  }
  // Through the central service only: it issues the token the terminal checks in with, and
  // hands a terminal key on for this one push (it never keeps it). Its refusal is the answer.
  if (!central?.user) return { ok: false, detail: PUSH_WORDS.notSignedIn(request.centralUrl) };
  try {
    await untilCentralLists(deps, central, target.id);
    const [answer] = await central.configure({
      ids: [target.id],
      ...body,
      ...(request.key !== undefined && { keys: { [target.id]: request.key } }),
    });
    // The central service took the push on (its token went with it), whatever the terminal did.
    result.via = 'central';
    if (answer?.ok) {
      return { ok: true, detail: PUSH_WORDS.savedThroughCentral(central.baseUrl) };
    }
    return {
      ok: false,
      detail: PUSH_WORDS.centralFailed(answer ? centralPushError(answer) : PUSH_WORDS.noAnswer()),
      ...(answer?.errorDetail && { errorDetail: answer.errorDetail }),
    };
  } catch (err) {
    if (err instanceof ReachError && err.status !== null && err.status >= 400 && err.status < 500) {
      // One id per call: a 409 here is the central service hearing it from two addresses.
      const reason =
        err.status === 409 && err.code === 'conflict'
          ? PUSH_WORDS.claimedTwice(target.id)
          : err.message;
      result.refusal = reason;
      return {
        ok: false,
        detail: PUSH_WORDS.refused(reason),
        ...(err.code !== null && {
          errorDetail: {
            code: err.code,
            params: { ...err.facts.params, status: err.status, id: target.id },
            message: reason,
          },
        }),
      };
    }
    return { ok: false, detail: PUSH_WORDS.centralFailed(why(err)), ...detailOf(err) };
  }
}

/**
 * The central service pushes only to terminals it lists; one the console heard a moment ago may
 * not be there yet. Probe once and give it a few seconds before falling back to a direct push.
 */
async function untilCentralLists(
  deps: PushDeps,
  central: CentralClient,
  id: string,
): Promise<void> {
  const deadline = deps.clock.now() + (deps.centralListWaitMs ?? 5_000);
  let probed = false;
  while (!(await central.nodes()).value.some((n) => n.id === id)) {
    if (deps.clock.now() >= deadline) return;
    if (!probed) {
      probed = true;
      await deps.probe?.();
    }
    await (deps.sleep ?? sleep)(250);
  }
}

async function waitForCheckin(
  deps: PushDeps,
  central: CentralClient | null,
  id: string,
  before: string | null,
): Promise<Step & { at: string | null }> {
  if (!central || before === null) {
    return { ok: false, detail: PUSH_WORDS.cannotProve(), at: null };
  }
  const deadline = deps.clock.now() + (deps.checkinTimeoutMs ?? 20_000);
  let last = PUSH_WORDS.notListed();
  for (;;) {
    try {
      const node = (await central.nodes()).value.find((n) => n.id === id);
      if (node?.lastCheckin && node.lastCheckin >= before) {
        return { ok: true, detail: PUSH_WORDS.checkedInAt(node.lastCheckin), at: node.lastCheckin };
      }
      if (node) {
        last = node.lastCheckin
          ? PUSH_WORDS.olderCheckin(node.lastCheckin)
          : PUSH_WORDS.noCheckinYet();
      }
    } catch (err) {
      last = PUSH_WORDS.nodeListFailed(why(err));
    }
    if (deps.clock.now() >= deadline) break;
    await (deps.sleep ?? sleep)(deps.pollMs ?? 500);
  }
  const seconds = Math.round((deps.checkinTimeoutMs ?? 20_000) / 1000);
  return { ok: false, detail: PUSH_WORDS.noCheckin(seconds, last), at: null };
}
