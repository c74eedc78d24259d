import { z } from 'zod';
import { namesOrganization, type PersonSyncOut } from '@svc/shared';
import type { CentralClient } from '../clients/central-client.js';
import type { TerminalClient } from '../clients/terminal-client.js';
import type { PushResult } from '../push/push.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { t } from '../i18n.js';
import {
  PUSH_WORDS,
  TERMINAL_WORDS,
  centralWarnings,
  changedSince,
  localClock,
  localTime,
  roleName,
} from '../texts.js';
import { maskId, type Evidence, type LayerId } from './layers.js';
import { runRecognition } from './recognition.js';

/** What the technician gives a layer before it runs (never a credential). */
export const layerInput = z
  .object({
    organization: z.string().trim().max(200).optional(),
    space: z.string().trim().max(200).optional(),
    person: z.string().trim().max(200).optional(),
    /** Sync: the test person's photo (JPEG, base64); sent to the central service, never kept. */
    photoBase64: z.string().max(8_000_000).optional(),
  })
  .strict();
export type LayerInput = z.infer<typeof layerInput>;

export interface RunnerDeps {
  central: CentralClient;
  /** The site's address for the web layer (defaults to the central address). */
  siteUrl: string;
  terminals: () => TerminalEntry[];
  /**
   * Terminals seen in this session that went offline (their last announce). With the pushes'
   * terminals no longer heard, they stay in the discovery and terminal configuration layers.
   */
  offline?: () => TerminalEntry[];
  pushes: () => PushResult[];
  terminalClient: TerminalClient;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** How long sync and erasure may take before the layer fails. */
  waitMs?: number;
  /**
   * Test people created and not yet seen erased, kept on disk by the caller (a check stopped
   * in the middle leaves one at central: the next check erases it first).
   */
  testPeople?: { list(): Promise<string[]>; set(ids: string[]): Promise<void> };
}

const fact = (label: string, value: string, ok: boolean): Evidence => ({ label, value, ok });
/** A fact that holds but deserves a look: never shown as a tick. */
const warn = (label: string, value: string): Evidence => ({
  label,
  value,
  ok: true,
  warning: true,
});
const LOOPBACK = /^(127\.|localhost$|\[?::1\]?$)/;

async function poll<T>(deps: RunnerDeps, what: () => Promise<T | null>): Promise<T | null> {
  const deadline = deps.now() + (deps.waitMs ?? 30_000);
  for (;;) {
    const value = await what();
    if (value !== null || deps.now() >= deadline) return value;
    await deps.sleep(500);
  }
}

/** A terminal of this session not heard now: where and when it was last known. */
interface Gone {
  id: string;
  where: string;
  /** Its latest push, when it had one. */
  push: PushResult | undefined;
}

const latestPush = (pushes: PushResult[], id: string) =>
  [...pushes].reverse().find((r) => r.id === id);

/**
 * Every terminal the technician saw or pushed to in this session that is not heard now: gone
 * offline (its last announce), or known only from a push (not heard since the console started).
 */
function goneTerminals(deps: RunnerDeps, heard: TerminalEntry[]): Gone[] {
  const pushes = deps.pushes();
  const here = new Set(heard.map((h) => h.id));
  const gone = new Map<string, Gone>();
  for (const o of deps.offline?.() ?? []) {
    if (here.has(o.id)) continue;
    gone.set(o.id, {
      id: o.id,
      where: t('evidence.lastHeard', { at: localTime(o.lastSeen), address: o.address }),
      push: latestPush(pushes, o.id),
    });
  }
  for (const p of pushes) {
    if (here.has(p.id) || gone.has(p.id)) continue;
    gone.set(p.id, {
      id: p.id,
      where: t('evidence.notHeardSincePush', { at: localTime(p.pushedAt), address: p.address }),
      push: latestPush(pushes, p.id),
    });
  }
  return [...gone.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * An offline terminal proven earlier is a warning (its proof stands, but nobody sees it now);
 * one never proven fails the layer. Either way it is named.
 */
function goneFact(g: Gone, label: string, proven: string, unproven: string): Evidence {
  return g.push?.ok
    ? warn(label, t(proven, { where: g.where, url: g.push.centralUrl }))
    : fact(label, t(unproven, { where: g.where }), false);
}

export async function runLayer(
  deps: RunnerDeps,
  id: LayerId,
  input: LayerInput,
): Promise<Evidence[]> {
  const c = deps.central;
  switch (id) {
    case 'services': {
      const hb = (await c.heartbeat()).value;
      const workers = Object.entries(hb.workers);
      return [
        fact(
          t('evidence.database'),
          t('evidence.databaseState', {
            state: t(`evidence.states.${hb.database.state}`, { defaultValue: hb.database.state }),
            dialect: hb.database.dialect,
          }),
          hb.database.state === 'up',
        ),
        ...workers.map(([name, state]) =>
          fact(
            t('evidence.worker', { name }),
            t(`evidence.states.${state}`, { defaultValue: state }),
            state !== 'stopped',
          ),
        ),
        ...centralWarnings(hb).map((w) => warn(t('evidence.warning'), w)),
      ];
    }
    case 'web': {
      const out: Evidence[] = [];
      for (const path of ['/', '/login']) {
        const page = new URL(path, deps.siteUrl).toString();
        try {
          const res = await fetch(page, { signal: AbortSignal.timeout(8_000) });
          const body = await res.text();
          out.push(
            fact(
              `GET ${path}`,
              t('evidence.page', {
                status: res.status,
                type: res.headers.get('content-type') ?? '',
                bytes: body.length,
              }),
              res.status === 200 && /text\/html/.test(res.headers.get('content-type') ?? ''),
            ),
          );
        } catch (err) {
          out.push(fact(`GET ${path}`, err instanceof Error ? err.message : String(err), false));
        }
      }
      return out;
    }
    case 'central': {
      const hb = await c.heartbeat();
      return [
        fact(t('evidence.heartbeatState'), String(hb.value.state), hb.value.state === 1),
        fact(
          t('evidence.responseTime'),
          t('evidence.ms', { ms: Math.round(hb.value.responseTimeMs * 10) / 10 }),
          true,
        ),
        fact(t('evidence.roundTrip'), t('evidence.ms', { ms: Math.round(hb.elapsedMs) }), true),
        fact(t('evidence.version'), hb.value.version, true),
      ];
    }
    case 'data': {
      if (!c.user) return [fact(t('evidence.signIn'), t('evidence.notSignedIn'), false)];
      const out: Evidence[] = [
        fact(
          t('evidence.signedInAs'),
          t('evidence.userRole', { user: c.user.username, role: roleName(c.user.role) }),
          true,
        ),
      ];
      const orgs = (await c.organizations()).value.items;
      // The site shows the seed's organization in its reader's language: either name finds it.
      const typed = input.organization ?? '';
      const found = await Promise.all(orgs.map((o) => namesOrganization(o.name, typed)));
      const org = orgs.find((_o, i) => found[i]);
      out.push(
        fact(
          t('evidence.organization'),
          org ? typed.trim() : t('evidence.notFound', { name: typed }),
          !!org,
        ),
      );
      const spaces = (await c.spaces()).value.items;
      const space = spaces.find((s) => s.name === input.space);
      out.push(
        fact(
          t('evidence.space'),
          space ? space.name : t('evidence.notFound', { name: input.space ?? '' }),
          !!space,
        ),
      );
      const people = input.person ? (await c.people(input.person)).value.items : [];
      const person = people.find((p) => p.name === input.person || p.idNumber === input.person);
      out.push(
        fact(
          t('evidence.person'),
          person
            ? t('evidence.personFound', { name: person.name, id: maskId(person.idNumber) })
            : t('evidence.notFound', { name: input.person ?? '' }),
          !!person,
        ),
      );
      if (person) {
        const photo = await c.photoFacts(person.id);
        out.push(
          fact(
            t('evidence.photoReadable'),
            t('evidence.page', { status: photo.status, type: photo.type, bytes: photo.bytes }),
            photo.status === 200 && photo.bytes > 0 && photo.type.startsWith('image/'),
          ),
        );
      }
      return out;
    }
    case 'discovery': {
      const heard = deps.terminals();
      const nodes = (await c.nodes()).value;
      const online = (await c.onlineCount()).value.count;
      const out: Evidence[] = [
        fact(t('evidence.terminalsHeard'), String(heard.length), heard.length > 0),
        fact(t('evidence.terminalsListed'), String(nodes.length), true),
        fact(t('evidence.devicesOnline'), String(online), true),
      ];
      const gone = goneTerminals(deps, heard);
      for (const terminal of heard) {
        const node = nodes.find((n) => n.id === terminal.id);
        out.push(
          fact(
            t('evidence.atCentral', { id: terminal.id }),
            node ? `${node.address}:${node.port}` : t('evidence.notListed'),
            !!node && node.address === terminal.address,
          ),
        );
      }
      for (const g of gone) {
        out.push(
          goneFact(
            g,
            t('evidence.atCentral', { id: g.id }),
            'evidence.offlineNotCompared',
            'evidence.offlineNotComparedUnproven',
          ),
        );
      }
      const host = new URL(c.baseUrl).hostname;
      const label = t('evidence.reachable');
      if (!LOOPBACK.test(host)) out.push(fact(label, c.baseUrl, true));
      // Loopback reaches only terminals on this same host: a warning, even where it works.
      else if (heard.every((h) => LOOPBACK.test(h.address)))
        out.push(warn(label, t('evidence.loopbackHere', { url: c.baseUrl })));
      else out.push(fact(label, t('evidence.loopback', { url: c.baseUrl }), false));
      return out;
    }
    case 'terminals': {
      const heard = deps.terminals();
      const pushes = deps.pushes();
      const gone = goneTerminals(deps, heard);
      if (heard.length === 0 && gone.length === 0)
        return [fact(t('evidence.terminals'), t('evidence.noneHeard'), false)];
      const offline = gone.map((g) =>
        goneFact(g, g.id, 'evidence.offlineProven', 'evidence.offlineUnproven'),
      );
      const online = heard.map((terminal) => {
        const p = [...pushes].reverse().find((r) => r.id === terminal.id);
        if (!p) return fact(terminal.id, t('proof.notPushed'), false);
        // A proof holds while the terminal still announces the address it proved.
        if (p.ok && changedSince(terminal, p)) {
          return fact(
            terminal.id,
            TERMINAL_WORDS.changedSince(p.centralUrl, terminal.central ?? ''),
            false,
          );
        }
        return fact(
          terminal.id,
          t('evidence.pushProof', {
            saved: p.saved.ok ? t('proof.saved') : t('proof.notSaved'),
            readBack: p.readBack.ok ? t('proof.readBack') : t('proof.notReadBack'),
            checkedIn:
              p.checkedIn.ok && p.checkedIn.at
                ? PUSH_WORDS.checkedInAt(p.checkedIn.at)
                : t('proof.noCheckin'),
            url: p.centralUrl,
          }),
          p.ok,
        );
      });
      return [...online, ...offline];
    }
    case 'sync':
      return runSync(deps, input);
    case 'recognition':
      return runRecognition(deps);
  }
}

async function runSync(deps: RunnerDeps, input: LayerInput): Promise<Evidence[]> {
  const c = deps.central;
  if (!input.photoBase64) return [fact(t('evidence.photo'), t('evidence.choosePhoto'), false)];
  const space = (await c.spaces()).value.items.find((s) => s.name === input.space);
  if (!space) {
    return [fact(t('evidence.space'), t('evidence.notFound', { name: input.space ?? '' }), false)];
  }
  const leftOver = await eraseLeftTestPeople(deps);
  if (leftOver.some((e) => !e.ok)) return leftOver;
  const stamp = new Date(deps.now()).toISOString().replace(/\D/g, '').slice(0, 14);
  const person = (
    await c.createPerson({
      // In the technician's language: the site's lists show it by this name meanwhile.
      name: t('evidence.testPersonName', { stamp }),
      idNumber: `ACC${stamp}`,
      spaceIds: [space.id],
    })
  ).value;
  await deps.testPeople?.set([person.id]);
  const out: Evidence[] = [
    ...leftOver,
    fact(
      t('evidence.testPersonCreated'),
      t('evidence.personIn', { name: person.name, space: space.name }),
      true,
    ),
  ];
  // The test person leaves the central service on every path: a refused photo, a device
  // error, a failed poll.
  let held: string[] = [];
  try {
    held = await syncTestPerson(deps, person.id, input.photoBase64, space.name, out);
  } catch (err) {
    out.push(
      fact(t('evidence.synchronized'), err instanceof Error ? err.message : String(err), false),
    );
  } finally {
    const erased = await eraseTestPerson(deps, person.id);
    out.push(erased);
    if (erased.ok) {
      await deps.testPeople?.set([]);
      out.push(...(await droppedByDevices(deps, person.id, held)));
    }
  }
  return out;
}

/** Erases the test people an interrupted check left at central, and says so. */
async function eraseLeftTestPeople(deps: RunnerDeps): Promise<Evidence[]> {
  const left = (await deps.testPeople?.list()) ?? [];
  const out: Evidence[] = [];
  const still: string[] = [];
  for (const id of left) {
    const exists = await deps.central.personExists(id);
    const erased = exists ? await eraseTestPerson(deps, id) : null;
    if (erased && !erased.ok) still.push(id);
    out.push(
      fact(
        t('evidence.leftOver'),
        erased === null
          ? t('evidence.leftOverGone', { id })
          : erased.ok
            ? t('evidence.leftOverErased', { id })
            : t('evidence.leftOverKept', { id, why: erased.value }),
        erased === null || erased.ok,
      ),
    );
  }
  if (left.length > 0) await deps.testPeople?.set(still);
  return out;
}

/**
 * The erasure on the devices themselves: every device that acknowledged holding the test
 * person must acknowledge dropping it (its own answer to the central service's delete task,
 * read back from the task as the sync proof is). One that still holds it fails the layer.
 */
async function droppedByDevices(
  deps: RunnerDeps,
  personId: string,
  held: string[],
): Promise<Evidence[]> {
  const c = deps.central;
  if (held.length === 0) return [];
  type Task = Awaited<ReturnType<CentralClient['personTasks']>>[number];
  let deletes: Task[] = [];
  try {
    await poll(deps, async () => {
      deletes = (await c.personTasks(personId)).filter((task) => task.action === 'delete');
      const done = (sn: string) =>
        deletes.some(
          (task) =>
            task.sn === sn &&
            (task.state === 'succeeded' || task.state === 'failed' || task.error !== null),
        );
      return held.every(done) ? true : null;
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return held.map((sn) =>
      fact(t('evidence.droppedBy', { sn }), t('evidence.dropUnknown', { reason: why }), false),
    );
  }
  return held.map((sn) => {
    const task = [...deletes].reverse().find((x) => x.sn === sn);
    const label = t('evidence.droppedBy', { sn });
    if (!task) return fact(label, t('evidence.stillHeldNoTask'), false);
    if (task.state === 'succeeded' && task.resultVersion === null) {
      return fact(
        label,
        t('evidence.dropped', { at: localClock(task.finishedAt ?? task.updatedAt) }),
        true,
      );
    }
    const answer = task.error
      ? t('evidence.deviceAnswered', { message: task.error.message })
      : t('evidence.noAnswerYet');
    return fact(
      label,
      t('evidence.stillHeld', {
        state: t(`evidence.states.${task.state}`, { defaultValue: task.state }),
        answer,
      }),
      false,
    );
  });
}

async function syncTestPerson(
  deps: RunnerDeps,
  personId: string,
  photoBase64: string,
  spaceName: string,
  out: Evidence[],
): Promise<string[]> {
  const c = deps.central;
  const sha = await c.putPhoto(personId, Buffer.from(photoBase64, 'base64'));
  out.push(fact(t('evidence.photoStored'), `sha256 ${sha.slice(0, 12)}…`, true));
  let seen: PersonSyncOut['items'] = [];
  // Done when every task that carries this photo has finished, or its device has answered
  // with an error (a retry comes later; the technician needs the device's answer now).
  const synced = await poll(deps, async () => {
    const items = (await c.personSync(personId)).value.items.filter(
      (i) => i.action === 'put' && i.photoSha256 === sha,
    );
    seen = items;
    const answered = (i: (typeof items)[number]) =>
      i.state === 'succeeded' || i.state === 'failed' || (i.attempts > 0 && i.error !== undefined);
    return items.length > 0 && items.every(answered) ? items : null;
  });
  const items = synced ?? seen;
  if (items.length === 0) {
    out.push(fact(t('evidence.synchronized'), t('evidence.noTask', { space: spaceName }), false));
  }
  for (const item of items) out.push(deviceFact(item, sha));
  // The devices that now hold the test person: each must drop it again.
  return items.filter((i) => i.state === 'succeeded').map((i) => i.sn);
}

function deviceFact(item: PersonSyncOut['items'][number], sha: string): Evidence {
  const agree =
    item.state === 'succeeded' &&
    item.resultPhotoSha256 === sha &&
    item.resultVersion === item.version;
  if (item.state === 'succeeded') {
    return fact(
      t('evidence.device', { sn: item.sn }),
      t('evidence.deviceHolds', {
        version: item.resultVersion ?? '–',
        photo: item.resultPhotoSha256?.slice(0, 12) ?? '–',
      }),
      agree,
    );
  }
  const answer = item.error
    ? t('evidence.deviceAnswered', { message: item.error.message })
    : t('evidence.noAnswerYet');
  const next =
    item.state === 'failed'
      ? t('evidence.gaveUp', { attempts: item.attempts })
      : item.attempts > 0
        ? t('evidence.triesAgain', {
            at: localClock(item.nextAttemptAt),
            attempt: item.attempts + 1,
          })
        : t('evidence.notReached');
  return fact(
    t('evidence.device', { sn: item.sn }),
    t('evidence.deviceState', {
      state: t(`evidence.states.${item.state}`, { defaultValue: item.state }),
      answer,
      next,
    }),
    false,
  );
}

async function eraseTestPerson(deps: RunnerDeps, personId: string): Promise<Evidence> {
  const c = deps.central;
  try {
    await c.deletePerson(personId);
  } catch (err) {
    return fact(t('evidence.erased'), err instanceof Error ? err.message : String(err), false);
  }
  const erased = await poll(deps, async () => ((await c.personExists(personId)) ? null : true));
  return fact(
    t('evidence.erased'),
    erased ? t('evidence.erasedYes') : t('evidence.erasedNo'),
    erased === true,
  );
}
