import { t } from '../i18n.js';
import { localTime } from '../texts.js';
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
