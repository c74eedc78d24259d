import type { TerminalConfig, TerminalKind } from '@svc/shared';
import type { Clock } from '../clock.js';
import type { CentralClient } from '../clients/central-client.js';
import { ReachError } from '../clients/http.js';
import { terminalBase, type TerminalClient } from '../clients/terminal-client.js';

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
}

export interface Step {
  ok: boolean;
  /** What was seen, or why it failed, in words. */
  detail: string;
}

export interface PushResult {
  id: string;
  kind: TerminalKind;
  address: string;
  port: number;
  centralUrl: string;
  panelUrl: string | null;
  /** Through the central service (which issues the check-in token) or straight to the terminal. */
  via: 'central' | 'direct';
  pushedAt: string;
  saved: Step;
  readBack: Step & { config: TerminalConfig | null };
  checkedIn: Step & { at: string | null };
  ok: boolean;
}

export interface PushDeps {
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
    via: 'direct',
    pushedAt: before ?? new Date(deps.clock.now()).toISOString(),
    saved: { ok: false, detail: 'not tried' },
    readBack: { ok: false, detail: 'not tried', config: null },
    checkedIn: { ok: false, detail: 'not tried', at: null },
    ok: false,
  };

  result.saved = await save(deps, central, target, base, request, body, result);
  if (!result.saved.ok) return result;

  try {
    const config = await deps.terminals.read(base, request.key);
    const problems: string[] = [];
    if (!sameUrl(config.centralUrl, request.centralUrl)) {
      problems.push(`central address reads "${config.centralUrl}", pushed "${request.centralUrl}"`);
    }
    if (body.panelUrl !== undefined && !sameUrl(config.panelUrl, body.panelUrl)) {
      problems.push(`panel address reads "${config.panelUrl}", pushed "${body.panelUrl}"`);
    }
    result.readBack = {
      ok: problems.length === 0,
      detail:
        problems.length === 0 ? `GET /api/config reads ${config.centralUrl}` : problems.join('; '),
      config,
    };
  } catch (err) {
    result.readBack = { ok: false, detail: `read back failed: ${why(err)}`, config: null };
  }
  if (!result.readBack.ok) return result;

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
  let centralProblem = '';
  // Through the central service when signed in there: it issues the token the terminal checks
  // in with, and hands a terminal key on for this one push (it never keeps it).
  if (central?.user) {
    try {
      await untilCentralLists(deps, central, target.id);
      const [answer] = await central.configure({
        ids: [target.id],
        ...body,
        ...(request.key !== undefined && { keys: { [target.id]: request.key } }),
      });
      if (answer?.ok) {
        result.via = 'central';
        return {
          ok: true,
          detail: `saved through ${central.baseUrl} (it issued the check-in token)`,
        };
      }
      centralProblem = `the central service could not push (${answer?.error ?? 'no answer'}); `;
    } catch (err) {
      centralProblem = `the central service could not push (${why(err)}); `;
    }
  }
  try {
    const saved = await deps.terminals.push(base, body, request.key);
    return {
      ok: true,
      detail: `${centralProblem}saved by the terminal at ${saved.updatedAt ?? 'unknown time'}`,
    };
  } catch (err) {
    return {
      ok: false,
      detail: centralProblem + (err instanceof ReachError ? err.message : why(err)),
    };
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
    return {
      ok: false,
      detail: 'not proven: the console cannot reach the central service being pushed',
      at: null,
    };
  }
  const deadline = deps.clock.now() + (deps.checkinTimeoutMs ?? 20_000);
  let last = 'the central service does not list the terminal';
  for (;;) {
    try {
      const node = (await central.nodes()).value.find((n) => n.id === id);
      if (node?.lastCheckin && node.lastCheckin >= before) {
        return { ok: true, detail: `checked in at ${node.lastCheckin}`, at: node.lastCheckin };
      }
      if (node) {
        last = node.lastCheckin
          ? `last check-in ${node.lastCheckin} is older than the push`
          : 'the central service has no check-in from it yet';
      }
    } catch (err) {
      last = `could not read the central node list: ${why(err)}`;
    }
    if (deps.clock.now() >= deadline) break;
    await (deps.sleep ?? sleep)(deps.pollMs ?? 500);
  }
  const seconds = Math.round((deps.checkinTimeoutMs ?? 20_000) / 1000);
  return {
    ok: false,
    detail: `no check-in within ${seconds} s: ${last}. A terminal checks in with a token the central service issues when it pushes; sign in to the central service and push again, or configure it from the site`,
    at: null,
  };
}
