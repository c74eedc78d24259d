import { z } from 'zod';
import type { CentralClient } from '../clients/central-client.js';
import { terminalBase, type TerminalClient } from '../clients/terminal-client.js';
import type { PushResult } from '../push/push.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { maskId, type Evidence, type LayerId } from './layers.js';

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
  pushes: () => PushResult[];
  terminalClient: TerminalClient;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** How long sync and erasure may take before the layer fails. */
  waitMs?: number;
}

const fact = (label: string, value: string, ok: boolean): Evidence => ({ label, value, ok });
const LOOPBACK = /^(127\.|localhost$|\[?::1\]?$)/;

async function poll<T>(deps: RunnerDeps, what: () => Promise<T | null>): Promise<T | null> {
  const deadline = deps.now() + (deps.waitMs ?? 30_000);
  for (;;) {
    const value = await what();
    if (value !== null || deps.now() >= deadline) return value;
    await deps.sleep(500);
  }
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
          'database',
          `${hb.database.state} (${hb.database.dialect})`,
          hb.database.state === 'up',
        ),
        ...workers.map(([name, state]) => fact(`worker ${name}`, state, state !== 'stopped')),
        ...hb.warnings.map((w) => fact('warning', w, true)),
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
              `${res.status} ${res.headers.get('content-type') ?? ''}, ${body.length} bytes`,
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
        fact('heartbeat state', String(hb.value.state), hb.value.state === 1),
        fact('response time (service)', `${hb.value.responseTimeMs} ms`, true),
        fact('round trip from this laptop', `${Math.round(hb.elapsedMs)} ms`, true),
        fact('version', hb.value.version, true),
      ];
    }
    case 'data': {
      if (!c.user) return [fact('sign-in', 'not signed in to the central service', false)];
      const out: Evidence[] = [fact('signed in as', `${c.user.username} (${c.user.role})`, true)];
      const orgs = (await c.organizations()).value.items;
      const org = orgs.find((o) => o.name === input.organization);
      out.push(
        fact('organization', org ? org.name : `"${input.organization ?? ''}" not found`, !!org),
      );
      const spaces = (await c.spaces()).value.items;
      const space = spaces.find((s) => s.name === input.space);
      out.push(fact('space', space ? space.name : `"${input.space ?? ''}" not found`, !!space));
      const people = input.person ? (await c.people(input.person)).value.items : [];
      const person = people.find((p) => p.name === input.person || p.idNumber === input.person);
      out.push(
        fact(
          'person',
          person
            ? `${person.name}, ID ${maskId(person.idNumber)}`
            : `"${input.person ?? ''}" not found`,
          !!person,
        ),
      );
      if (person) {
        const photo = await c.photoFacts(person.id);
        out.push(
          fact(
            'photo readable',
            `${photo.status} ${photo.type}, ${photo.bytes} bytes`,
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
        fact('terminals heard by this console', String(heard.length), heard.length > 0),
        fact('terminals listed by the central service', String(nodes.length), true),
        fact('recognition devices online (counted apart)', String(online), true),
      ];
      for (const t of heard) {
        const node = nodes.find((n) => n.id === t.id);
        out.push(
          fact(
            `${t.id} at central`,
            node ? `${node.address}:${node.port}` : 'not listed',
            !!node && node.address === t.address,
          ),
        );
      }
      const host = new URL(c.baseUrl).hostname;
      out.push(
        fact(
          'central address reachable from terminals',
          c.baseUrl,
          !LOOPBACK.test(host) || heard.every((t) => LOOPBACK.test(t.address)),
        ),
      );
      return out;
    }
    case 'terminals': {
      const heard = deps.terminals();
      const pushes = deps.pushes();
      if (heard.length === 0) return [fact('terminals', 'none heard', false)];
      return heard.map((t) => {
        const p = [...pushes].reverse().find((r) => r.id === t.id);
        return fact(
          t.id,
          p
            ? `${p.saved.ok ? 'saved' : 'not saved'} / ${p.readBack.ok ? 'read back' : 'not read back'} / ${p.checkedIn.ok ? p.checkedIn.detail : 'no check-in'} (${p.centralUrl})`
            : 'not pushed yet',
          p?.ok === true,
        );
      });
    }
    case 'sync':
      return runSync(deps, input);
    case 'recognition':
      return runRecognition(deps);
  }
}

async function runSync(deps: RunnerDeps, input: LayerInput): Promise<Evidence[]> {
  const c = deps.central;
  if (!input.photoBase64) return [fact('photo', 'choose a photo for the test person', false)];
  const space = (await c.spaces()).value.items.find((s) => s.name === input.space);
  if (!space) return [fact('space', `"${input.space ?? ''}" not found`, false)];
  const stamp = new Date(deps.now()).toISOString().replace(/\D/g, '').slice(0, 14);
  const person = (
    await c.createPerson({
      name: `Acceptance test ${stamp}`,
      idNumber: `ACC${stamp}`,
      spaceIds: [space.id],
    })
  ).value;
  const out: Evidence[] = [fact('test person created', `${person.name} in ${space.name}`, true)];
  const sha = await c.putPhoto(person.id, Buffer.from(input.photoBase64, 'base64'));
  out.push(fact('photo stored', `sha256 ${sha.slice(0, 12)}…`, true));
  const synced = await poll(deps, async () => {
    // Only the tasks that carry this photo: the one made before the photo waits for it.
    const items = (await c.personSync(person.id)).value.items.filter(
      (i) => i.action === 'put' && i.photoSha256 === sha,
    );
    return items.length > 0 && items.every((i) => i.state === 'succeeded' || i.state === 'failed')
      ? items
      : null;
  });
  if (!synced)
    out.push(
      fact(
        'synchronized',
        'no device finished within the wait (is a device registered in that space?)',
        false,
      ),
    );
  for (const item of synced ?? []) {
    const agree =
      item.state === 'succeeded' &&
      item.resultPhotoSha256 === sha &&
      item.resultVersion === item.version;
    out.push(
      fact(
        `device ${item.sn}`,
        `${item.state}; device holds version ${item.resultVersion ?? '–'}, photo ${item.resultPhotoSha256?.slice(0, 12) ?? '–'}…${item.error ? ` (${item.error.message})` : ''}`,
        agree,
      ),
    );
  }
  await c.deletePerson(person.id);
  const erased = await poll(deps, async () => ((await c.personExists(person.id)) ? null : true));
  out.push(
    fact(
      'test person erased at central',
      erased ? 'GET /api/people/{id} answers 404' : 'still there',
      erased === true,
    ),
  );
  return out;
}

async function runRecognition(deps: RunnerDeps): Promise<Evidence[]> {
  const c = deps.central;
  const display = deps.terminals().find((t) => t.kind === 'display');
  if (!display) return [fact('display terminal', 'none heard', false)];
  const events = (await c.events({ page: '1' })).value.items;
  const latest = events[0];
  if (!latest)
    return [fact('central event', 'no recognition event at the central service yet', false)];
  const status = await deps.terminalClient.status(terminalBase(display.address, display.port));
  const shown = status.lastEvent;
  const out: Evidence[] = [
    fact(
      'central event',
      `${latest.person?.name ?? 'stranger'} at ${latest.device?.sn ?? '?'}, ${latest.time}`,
      true,
    ),
    fact(
      `display ${display.id} shows`,
      shown
        ? `${shown.person?.name ?? 'stranger'} at ${shown.device.sn}, ${shown.time}`
        : 'nothing yet',
      shown !== null,
    ),
  ];
  if (shown) {
    out.push(
      fact(
        'same person',
        `${latest.person?.id ?? 'null'} / ${shown.person?.id ?? 'null'}`,
        (latest.person?.id ?? null) === (shown.person?.id ?? null),
      ),
    );
    out.push(
      fact(
        'same device',
        `${latest.device?.sn ?? '?'} / ${shown.device.sn}`,
        latest.device?.sn === shown.device.sn,
      ),
    );
    out.push(fact('same time', `${latest.time} / ${shown.time}`, latest.time === shown.time));
  }
  return out;
}
