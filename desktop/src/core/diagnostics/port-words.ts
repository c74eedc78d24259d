import { t } from '../i18n.js';
import type { PortHolder } from './port-holders.js';

/**
 * Why the discovery port could not be opened, as a code and values (the banner, a probe and
 * Diagnostics word it in the language read now): another program holds it (`port_held`, with the
 * holders the system lets the console see, or null when it does not say), the system forbids it
 * (`not_allowed`), or another socket error (`other`, its code kept).
 */
export interface SocketProblem {
  code: 'port_held' | 'not_allowed' | 'other';
  port: number;
  holders: PortHolder[] | null;
  /** The command that names the port's holder on this system. */
  command: string;
  /** The socket's own error (only said for `other`). */
  error: string;
}

/** The command that names a UDP port's holder on `platform`. */
export function portCommand(platform: string, port: number): string {
  if (platform === 'win32') return `netstat -abno -p udp | findstr :${port}`;
  if (platform === 'darwin') return `sudo lsof -nP -iUDP:${port}`;
  return `sudo ss -ulpn 'sport = :${port}'`;
}

/** The socket problem of a failed bind: its code and what the system lets the console see. */
export function socketProblemOf(
  error: string,
  port: number,
  holders: PortHolder[] | null,
  platform: string,
): SocketProblem {
  const code = /EADDRINUSE/.test(error)
    ? 'port_held'
    : /EACCES|EPERM/.test(error)
      ? 'not_allowed'
      : 'other';
  return { code, port, holders, command: portCommand(platform, port), error };
}

const holderSaid = (h: PortHolder) =>
  t('terminals.notListening.holder', {
    name: h.name,
    pid: h.pid,
    command: h.command.length > 80 ? `${h.command.slice(0, 79)}…` : h.command,
  });

/** The problem in words: what happened, who holds the port (or how to find out), what to do. */
export function socketProblemWords(p: SocketProblem): string {
  const values = { port: p.port, command: p.command, error: p.error };
  if (p.code === 'not_allowed') return t('terminals.notListening.notAllowed', values);
  if (p.code === 'other') return t('terminals.notListening.other', values);
  const named = p.holders ?? [];
  return named.length > 0
    ? t('terminals.notListening.heldBy', { ...values, holders: named.map(holderSaid).join('; ') })
    : t('terminals.notListening.heldUnknown', values);
}
