import { t } from '../i18n.js';
import { localTime } from '../texts.js';
import type { PushResult } from '../push/push.js';
import type { TerminalEntry } from '../terminal-directory.js';
import type { Finding } from './diagnostics.js';

/** A terminal of this session that is not heard now, with its latest push in this session. */
export interface GoneTerminal {
  id: string;
  address: string;
  /** Its last announce (ISO-8601); null when it was not heard since the console started. */
  lastSeen: string | null;
  /** Its latest push: when, whether proven (saved, read back, checked in), to which address. */
  proof: { at: string; ok: boolean; centralUrl: string } | null;
}

/**
 * A terminal that was heard (or pushed to) in this session and is silent now: named with when
 * it went silent and its last proof, and what to check. One proven earlier is the worst case a
 * technician meets, a site that looked done: never "nothing looks wrong".
 */
export function goneFinding(g: GoneTerminal): Finding {
  const since = g.lastSeen
    ? t('diagnostics.gone.since', { at: localTime(g.lastSeen), address: g.address })
    : t('diagnostics.gone.notHeard', { address: g.address });
  const proof =
    g.proof === null
      ? t('diagnostics.gone.noPush')
      : g.proof.ok
        ? t('diagnostics.gone.proven', { at: localTime(g.proof.at), url: g.proof.centralUrl })
        : t('diagnostics.gone.notProven', { at: localTime(g.proof.at), url: g.proof.centralUrl });
  return {
    code: 'gone',
    severity: 'problem',
    title: t(g.proof?.ok ? 'diagnostics.gone.titleProven' : 'diagnostics.gone.title', {
      id: g.id,
      address: g.address,
    }),
    facts: [since, proof],
    advice: [
      t('diagnostics.gone.power', { address: g.address }),
      t('diagnostics.gone.ask', { address: g.address }),
      t('diagnostics.gone.probe'),
    ],
  };
}

/** Terminals of this session not heard now (gone offline, or pushed to and never heard). */
export function goneTerminals(
  heard: readonly TerminalEntry[],
  offline: readonly TerminalEntry[],
  pushes: readonly PushResult[],
): GoneTerminal[] {
  const here = new Set(heard.map((h) => h.id));
  const proofOf = (id: string): GoneTerminal['proof'] => {
    const p = [...pushes].reverse().find((x) => x.id === id);
    return p ? { at: p.pushedAt, ok: p.ok, centralUrl: p.centralUrl } : null;
  };
  const gone = new Map<string, GoneTerminal>();
  for (const o of offline) {
    if (here.has(o.id)) continue;
    gone.set(o.id, { id: o.id, address: o.address, lastSeen: o.lastSeen, proof: proofOf(o.id) });
  }
  for (const p of pushes) {
    if (here.has(p.id) || gone.has(p.id) || p.via === 'none') continue;
    gone.set(p.id, { id: p.id, address: p.address, lastSeen: null, proof: proofOf(p.id) });
  }
  return [...gone.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
