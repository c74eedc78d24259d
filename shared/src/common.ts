import { z } from 'zod';
import { ruleText } from './messages.js';

/** ISO-8601 UTC with milliseconds, e.g. 2026-11-22T06:30:00.000Z (PROTOCOL §0). */
export const isoTime = z.iso.datetime({ precision: 3 });

/** Terminal and node ids: 1–64 chars of A-Z a-z 0-9 . _ : - (PROTOCOL §1). */
export const nodeId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._:-]+$/, ruleText('format_node_id'));

export const port = z.number().int().min(1).max(65535);

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** An http(s) URL with a host; the central and panel addresses are of this kind. */
export const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    const url = parseUrl(value);
    return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  }, ruleText('url_http'));

/**
 * An http(s) URL the central service stores and shows back (device base URLs, the panel route):
 * no `user:password@`, because every administrator, operators included, reads these back.
 */
export const storedHttpUrl = httpUrl.refine((value) => {
  const url = parseUrl(value);
  return !url || (url.username === '' && url.password === '');
}, ruleText('url_no_credentials'));

/**
 * An address as a person types it, with `http://` in front when it names no scheme
 * ("192.168.1.10:8000"): what a technician means, where a browser would have added it too.
 */
export function withHttpScheme(typed: string): string {
  const value = typed.trim();
  return value === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
}

/**
 * The central address pushed to terminals: http://host[:port] with nothing after it. At most
 * 512 characters, so a terminal can always repeat it in a 1024-byte announce.
 */
export const centralUrl = z
  .string()
  .max(512)
  .refine((value) => {
    const url = parseUrl(value);
    return (
      !!url &&
      url.protocol === 'http:' &&
      url.hostname !== '' &&
      (url.pathname === '/' || url.pathname === '') &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  }, ruleText('url_central'));

/** `""` is allowed where the protocol says an address may be unset. */
export const optionalHttpUrl = z.union([z.literal(''), httpUrl]);
export const optionalStoredHttpUrl = z.union([z.literal(''), storedHttpUrl]);

export const terminalKind = z.enum(['enrollment', 'display']);
export type TerminalKind = z.infer<typeof terminalKind>;
