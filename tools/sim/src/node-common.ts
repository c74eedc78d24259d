/** Reported as `version` in announces unless a terminal is given its own. */
export const SIM_VERSION = '0.1.0';

/** The URL a client on this host uses to reach a node bound to `address`. */
export function nodeUrl(address: string, port: number): string {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address;
  return `http://${host}:${port}`;
}
