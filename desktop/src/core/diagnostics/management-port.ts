import { t } from '../i18n.js';
import { terminalConfig } from '@svc/shared';
import { terminalBase } from '../clients/terminal-client.js';

/** The management ports of PROTOCOL §2: enrollment terminals, then displays. */
export const MANAGEMENT_PORTS = [8182, 8181] as const;

export type PortAnswerKind =
  /** A terminal's configuration came back: the terminal runs there. */
  | 'terminal'
  /** A terminal with a management key answered (401): it runs there. */
  | 'terminal_with_key'
  /** Something answered HTTP, but not as a terminal. */
  | 'other_http'
  /** The host answered, but nothing listens on that port. */
  | 'refused'
  /** No answer at all: no host at that address, it is off, or a firewall drops it. */
  | 'silent';

export interface PortAnswer {
  port: number;
  kind: PortAnswerKind;
  /** What came back, in words ("HTTP 404", "connection timed out"). */
  detail: string;
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Asks `address` on each management port for its configuration, and classifies the answer. */
export async function askManagementPorts(
  address: string,
  {
    fetchFn = fetch,
    timeoutMs = 3_000,
    ports = MANAGEMENT_PORTS,
  }: { fetchFn?: Fetch; timeoutMs?: number; ports?: readonly number[] } = {},
): Promise<PortAnswer[]> {
  return Promise.all(
    ports.map(async (port): Promise<PortAnswer> => {
      let res: Response;
      try {
        res = await fetchFn(`${terminalBase(address, port)}/api/config`, {
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'manual',
        });
      } catch (err) {
        const e = err as { name?: string; cause?: { code?: string } };
        if (e.cause?.code === 'ECONNREFUSED') {
          return { port, kind: 'refused', detail: t('errors.reach.ECONNREFUSED') };
        }
        const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
        return {
          port,
          kind: 'silent',
          detail: timedOut
            ? t('diagnostics.port.timeout', { seconds: timeoutMs / 1000 })
            : (e.cause?.code ?? t('push.noAnswer')),
        };
      }
      const text = await res.text().catch(() => '');
      if (res.status === 401) {
        return { port, kind: 'terminal_with_key', detail: t('diagnostics.port.keySet') };
      }
      if (res.status === 200) {
        try {
          const config = terminalConfig.safeParse(JSON.parse(text));
          if (config.success) {
            const central = config.data.centralUrl || t('diagnostics.port.none');
            return { port, kind: 'terminal', detail: t('diagnostics.port.terminal', { central }) };
          }
        } catch {
          // not JSON: classified below as another HTTP service
        }
      }
      return {
        port,
        kind: 'other_http',
        detail: t('diagnostics.port.other', { status: res.status }),
      };
    }),
  );
}
