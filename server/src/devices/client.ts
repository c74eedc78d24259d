import { devicePersonState, type DevicePersonPut, type DevicePersonState } from '@svc/shared';
import { AnswerTooLarge, readCapped } from '../platform/http/peer-answer.js';

/** Where and how to reach one recognition device: its registered base URL and current key. */
export interface DeviceTarget {
  sn: string;
  baseUrl: string;
  key: string;
}

/** Central → device calls of PROTOCOL §3, each with `Authorization: Bearer <device key>`. */
export interface DeviceClient {
  /** Stores (or replaces) a person; idempotent. Resolves with what the device now holds. */
  putPerson(device: DeviceTarget, body: DevicePersonPut): Promise<DevicePersonState>;
  /** What the device holds for that person, or null when it has none (404). */
  getPerson(device: DeviceTarget, id: string): Promise<DevicePersonState | null>;
  /** Removes the person; 'absent' when the device did not have it (404) — both mean "not there". */
  deletePerson(device: DeviceTarget, id: string): Promise<'deleted' | 'absent'>;
}

export type DeviceCallFailure =
  /** The device refused the key (401/403): the key on the device differs from ours. */
  | 'unauthorized'
  /** Any other non-success status; `status` says which (507 = the device is full). */
  | 'http_status'
  /** No connection, reset, or no answer in time. */
  | 'unreachable'
  /** An answer this service cannot read. */
  | 'bad_answer'
  /** An answer larger than MAX_PEER_ANSWER_BYTES: refused, not read. */
  | 'answer_too_large'
  /** The request was not sent: an id that cannot be a path segment. */
  | 'invalid_request';

/**
 * What went wrong, as a stable code and its values (issue 34): a sync task keeps it beside the
 * English message, and the site words it in the reader's language (`sync.detail.<code>`).
 */
export interface CallDetail {
  code: string;
  params: Record<string, string | number>;
}

/** A failed call, described for the person at the console and for the sync task's `error`. */
export class DeviceCallError extends Error {
  constructor(
    readonly failure: DeviceCallFailure,
    message: string,
    readonly detail: CallDetail,
    /** The device's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }

  /** Whether trying again later can help (a wrong key or a bad request will not fix itself). */
  get retryable(): boolean {
    if (this.failure === 'unreachable') return true;
    if (this.failure !== 'http_status' || this.status === undefined) return false;
    return this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

/** A connection failure's English and its detail code (the site's `sync.detail.<code>`). */
const CONNECTION_CODES: Record<string, [string, string]> = {
  ECONNREFUSED: ['connection refused', 'connection_refused'],
  ECONNRESET: ['connection reset', 'connection_reset'],
  EHOSTUNREACH: ['host unreachable', 'host_unreachable'],
  ENETUNREACH: ['network unreachable', 'network_unreachable'],
  ETIMEDOUT: ['connection timed out', 'connection_timed_out'],
  ENOTFOUND: ['host name not found', 'host_not_found'],
  UND_ERR_CONNECT_TIMEOUT: ['connection timed out', 'connection_timed_out'],
  UND_ERR_SOCKET: ['connection closed without an answer', 'connection_closed'],
  UND_ERR_HEADERS_TIMEOUT: ['no answer in time', 'no_answer_in_time'],
};

// The id becomes one path segment: the node-id alphabet, never `.` or `..` (URL resolution
// would turn those into another path).
const PERSON_ID = /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,64}$/;

/**
 * What the client needs of fetch (the push worker passes a keep-alive transport). It must
 * refuse a redirect, give up after `timeoutMs` (connection to last byte) with an error
 * named TimeoutError, and reject `text()` with AnswerTooLarge past MAX_PEER_ANSWER_BYTES.
 */
export type DeviceFetch = (
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string | Uint8Array;
    timeoutMs: number;
  },
) => Promise<{ status: number; text(): Promise<string> }>;

/** The global fetch as a DeviceFetch (calls outside the push worker). */
export const globalDeviceFetch: DeviceFetch = async (url, { timeoutMs, ...init }) => {
  const res = await fetch(url, {
    ...init,
    // A device never redirects; following one would send its key elsewhere.
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, text: () => readCapped(res) };
};

export interface DeviceClientOptions {
  /** Per call, connection to last byte (default 15 s: a PUT carries a photo). */
  timeoutMs?: number;
  fetch?: DeviceFetch;
}

const bodies = new WeakMap<DevicePersonPut, Buffer>();

/**
 * A body's JSON bytes, made once per body object (the push worker sends one to many devices):
 * encoding 20 KB of JSON to UTF-8 for every push was a share of the push's CPU of its own.
 */
function serialized(body: DevicePersonPut): Buffer {
  let bytes = bodies.get(body);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(body));
    bodies.set(body, bytes);
  }
  return bytes;
}

export function createDeviceClient(opts: DeviceClientOptions = {}): DeviceClient {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const fetchImpl: DeviceFetch = opts.fetch ?? globalDeviceFetch;

  async function call(
    device: DeviceTarget,
    method: 'GET' | 'PUT' | 'DELETE',
    id: string,
    body?: DevicePersonPut,
  ): Promise<{ status: number; json: unknown }> {
    if (!PERSON_ID.test(id)) {
      const shown = id.slice(0, 80);
      throw new DeviceCallError('invalid_request', `"${shown}" cannot be a person id on a device`, {
        code: 'bad_person_id',
        params: { id: shown },
      });
    }
    const base = device.baseUrl.endsWith('/') ? device.baseUrl : `${device.baseUrl}/`;
    const url = new URL(`api/persons/${encodeURIComponent(id)}`, base);
    const where = { text: `device ${device.sn} at ${url.host}`, sn: device.sn, host: url.host };
    let res: Awaited<ReturnType<DeviceFetch>>;
    let text: string;
    try {
      res = await fetchImpl(url, {
        method,
        headers: {
          authorization: `Bearer ${device.key}`,
          accept: 'application/json',
          ...(body && { 'content-type': 'application/json' }),
        },
        ...(body && { body: serialized(body) }),
        timeoutMs,
      });
      text = await res.text();
    } catch (err) {
      throw connectionError(err, where, timeoutMs);
    }
    if (res.status === 401 || res.status === 403) {
      throw new DeviceCallError(
        'unauthorized',
        `${where.text} refused the device key (HTTP ${res.status}): set the current key on the device or rotate it`,
        { code: 'key_refused', params: { sn: where.sn, host: where.host, status: res.status } },
        res.status,
      );
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  }

  function state(answer: { status: number; json: unknown }, device: DeviceTarget) {
    const parsed = devicePersonState.safeParse(answer.json);
    if (!parsed.success) {
      throw new DeviceCallError(
        'bad_answer',
        `device ${device.sn} answered a person state this service does not understand`,
        { code: 'unreadable_state', params: { sn: device.sn } },
        answer.status,
      );
    }
    return parsed.data;
  }

  function unexpected(answer: { status: number; json: unknown }, device: DeviceTarget) {
    const said = (answer.json as { error?: { code?: unknown } } | undefined)?.error?.code;
    const deviceCode = typeof said === 'string' ? said.slice(0, 64) : undefined;
    return new DeviceCallError(
      'http_status',
      `device ${device.sn} answered HTTP ${answer.status}${deviceCode === undefined ? '' : ` (${deviceCode})`}`,
      deviceCode === undefined
        ? { code: 'http_status', params: { sn: device.sn, status: answer.status } }
        : {
            code: 'http_status_code',
            params: { sn: device.sn, status: answer.status, deviceCode },
          },
      answer.status,
    );
  }

  return {
    async putPerson(device, body) {
      const answer = await call(device, 'PUT', body.id, body);
      if (answer.status !== 200) throw unexpected(answer, device);
      return state(answer, device);
    },
    async getPerson(device, id) {
      const answer = await call(device, 'GET', id);
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw unexpected(answer, device);
      return state(answer, device);
    },
    async deletePerson(device, id) {
      const answer = await call(device, 'DELETE', id);
      if (answer.status === 404) return 'absent';
      if (answer.status < 200 || answer.status > 299) throw unexpected(answer, device);
      return 'deleted';
    },
  };
}

function connectionError(
  err: unknown,
  where: { text: string; sn: string; host: string },
  timeoutMs: number,
): DeviceCallError {
  const at = { sn: where.sn, host: where.host };
  if (err instanceof AnswerTooLarge) {
    const kib = err.limit / 1024;
    return new DeviceCallError(
      'answer_too_large',
      `${where.text} answered more than ${kib} KiB (${err.reason}); nothing was read`,
      { code: 'answer_too_large', params: { ...at, kib } },
    );
  }
  const e = err as { name?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    const seconds = timeoutMs / 1000;
    return new DeviceCallError('unreachable', `no answer from ${where.text} within ${seconds} s`, {
      code: 'no_answer_within',
      params: { ...at, seconds },
    });
  }
  const code = e.cause?.code;
  if (!code && e.name === 'TypeError' && /redirect/i.test(e.cause?.message ?? '')) {
    return new DeviceCallError('bad_answer', `${where.text} answered with a redirect`, {
      code: 'redirect',
      params: at,
    });
  }
  const [text, detail]: [string, string] = (code && CONNECTION_CODES[code]) || [
    'could not connect',
    'no_connection',
  ];
  return new DeviceCallError('unreachable', `${text} at ${where.text}`, {
    code: detail,
    params: at,
  });
}
