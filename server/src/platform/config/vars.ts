import { readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import type { centralUrl, optionalHttpUrl } from '@svc/shared';

/**
 * One environment variable: how it is documented and how it is parsed. The README's
 * configuration table is rendered from this list (a test keeps them equal), so the
 * documentation and the validation can never drift apart.
 */
export interface VarSpec<T> {
  name: string;
  type: string;
  default: string;
  purpose: string;
  secret?: boolean;
  /** Returns the value, or throws a ConfigError naming the rule. */
  parse(raw: string | undefined): T;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
  ) {
    super(`${variable}: ${rule}`);
  }
}

type Spec<T> = Omit<VarSpec<T>, 'parse'>;

function check<T>(spec: Spec<T>, rule: string, fn: (raw: string) => T | undefined) {
  return (raw: string | undefined, fallback: T): T => {
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = fn(raw.trim());
    if (value === undefined) {
      const shown = spec.secret ? '' : ` (got "${raw.length > 80 ? raw.slice(0, 80) + '…' : raw}")`;
      throw new ConfigError(spec.name, `${rule}${shown}`);
    }
    return value;
  };
}

function intIn(min: number, max: number) {
  return (raw: string) => {
    if (!/^\d+$/.test(raw)) return undefined;
    const n = Number(raw);
    return n >= min && n <= max ? n : undefined;
  };
}

export function port(spec: Spec<number>, fallback: number): VarSpec<number> {
  const parse = check(spec, 'must be a port number from 1 to 65535', intIn(1, 65535));
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function seconds(spec: Spec<number>, fallback: number, max = 86_400): VarSpec<number> {
  const parse = check(spec, `must be a whole number of seconds from 1 to ${max}`, intIn(1, max));
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function count(
  spec: Spec<number>,
  fallback: number,
  min: number,
  max: number,
): VarSpec<number> {
  const parse = check(spec, `must be a whole number from ${min} to ${max}`, intIn(min, max));
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function flag(spec: Spec<boolean>, fallback: boolean): VarSpec<boolean> {
  const parse = check(spec, 'must be 1 or 0 (also true/false, yes/no, on/off)', (raw) => {
    const v = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    return undefined;
  });
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function text(
  spec: Spec<string>,
  fallback: string,
  rule = 'must be 1 to 255 printable characters',
  pattern = /^[\x20-\x7e]{1,255}$/,
): VarSpec<string> {
  const parse = check(spec, rule, (raw) => (pattern.test(raw) ? raw : undefined));
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

/** A secret: kept as given (no trimming), never echoed in an error. */
export function secret(spec: Spec<string | undefined>): VarSpec<string | undefined> {
  return {
    ...spec,
    secret: true,
    parse(raw) {
      if (raw === undefined || raw === '') return undefined;
      if (raw.length > 1024) throw new ConfigError(spec.name, 'must be at most 1024 characters');
      return raw;
    },
  };
}

export function url(
  spec: Spec<string>,
  schema: typeof centralUrl | typeof optionalHttpUrl,
  rule: string,
): VarSpec<string> {
  const parse = check(spec, rule, (raw) => {
    const result = schema.safeParse(raw);
    return result.success ? raw.replace(/\/+$/, '') : undefined;
  });
  return { ...spec, parse: (raw) => parse(raw, '') };
}

/** A host name or IP literal, without scheme or port. */
export function host(spec: Spec<string>): VarSpec<string> {
  return text(
    spec,
    '',
    'must be a host name or IP address without scheme or port',
    // Labels may carry `_`: compose service names such as svc_db are host names there.
    /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?)*|\[?[0-9A-Fa-f:.]+\]?)$/,
  );
}

export function cidrList(spec: Spec<string[]>, fallback: string[]): VarSpec<string[]> {
  const parse = check(
    spec,
    'must be a comma-separated list of CIDR ranges such as 10.0.0.0/8,fd00::/8',
    (raw) => {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items) {
        try {
          ipaddr.parseCIDR(item);
        } catch {
          return undefined;
        }
      }
      return items.length > 0 ? items : undefined;
    },
  );
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function oneOf<T extends string>(
  spec: Spec<T>,
  values: readonly T[],
  fallback: T,
): VarSpec<T> {
  const parse = check(spec, `must be one of ${values.join(', ')}`, (raw) =>
    (values as readonly string[]).includes(raw) ? (raw as T) : undefined,
  );
  return { ...spec, parse: (raw) => parse(raw, fallback) };
}

export function directory(spec: Spec<string>, fallback: string): VarSpec<string> {
  const parse = check(spec, 'must be a directory path', (raw) =>
    raw.includes('\0') ? undefined : raw,
  );
  return { ...spec, parse: (raw) => path.resolve(parse(raw, fallback)) };
}

/**
 * A file holding a 32-byte secret as base64 (a secret manager's mount, for instance): read at
 * boot so a missing or malformed file stops the start with the variable named, not the first
 * push. The contents are never echoed.
 */
export function secretFile(spec: Spec<string | undefined>): VarSpec<string | undefined> {
  return {
    ...spec,
    parse(raw) {
      if (raw === undefined || raw.trim() === '') return undefined;
      const file = path.resolve(raw.trim());
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
        throw new ConfigError(spec.name, `cannot read ${file} (${code})`);
      }
      if (Buffer.from(text.trim(), 'base64').length !== 32) {
        throw new ConfigError(spec.name, `${file} must hold a 32-byte secret as base64`);
      }
      return file;
    },
  };
}

/** One database node of `DB_HOST`: a host, and its port when given (`host:port`). */
export interface HostPort {
  host: string;
  port?: number;
}

const HOST_NAME =
  /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})?)*$/;

/**
 * A host, or a comma-separated list of them, each with an optional `:port` (`[v6]:port` for an
 * IPv6 literal): the nodes of a cluster, tried in order.
 */
export function hostList(spec: Spec<HostPort[]>): VarSpec<HostPort[]> {
  const one = (item: string): HostPort | undefined => {
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(item);
    const bare = /^[0-9A-Fa-f:.]+$/.test(item) && item.includes('::') ? item : undefined;
    if (bare) return { host: bare };
    if (!m) return undefined;
    const host = m[1] ?? m[2]!;
    if (!m[1] && !HOST_NAME.test(host) && !/^[0-9.]+$/.test(host)) return undefined;
    if (m[3] === undefined) return { host };
    const port = Number(m[3]);
    return port >= 1 && port <= 65535 ? { host, port } : undefined;
  };
  const parse = check(
    spec,
    'must be a host name or IP address, or a comma-separated list of them, each with an optional :port (host1:3306,host2:3306)',
    (raw) => {
      const items = raw.split(',').map((s) => s.trim());
      if (items.length > 16 || items.some((s) => s === '')) return undefined;
      const nodes = items.map(one);
      return nodes.every((n) => n !== undefined) ? nodes : undefined;
    },
  );
  return { ...spec, parse: (raw) => parse(raw, []) };
}
