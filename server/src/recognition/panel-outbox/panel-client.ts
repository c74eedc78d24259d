import net from 'node:net';
import tls from 'node:tls';
import { panelFailureText, type AnswerPart } from '@svc/shared';
import { MAX_PEER_ANSWER_BYTES } from '../../platform/http/peer-answer.js';

/**
 * Sends panel events (PROTOCOL §4, one JSON body per POST) several at a time without giving up
 * their order: HTTP/1.1 pipelining on one connection. The requests leave in order on one
 * socket and the panel reads them in that order, so it sees event n before event n+1, while
 * the round trips overlap; one POST awaited at a time made delivery as slow as the event loop
 * of a busy server (about one event per turn). Node's own clients do not pipeline.
 */
export interface PanelTransport {
  /**
   * POSTs `bodies` to `url` in order. One result per body: undefined when the panel answered
   * 2xx, else why not. A body that was never answered gets the reason the connection ended.
   */
  post(url: string, bodies: string[]): Promise<(string | undefined)[]>;
  /** Ends the connection; whatever is in flight fails with 'interrupted by a shutdown'. */
  close(): void;
}

/** Responses bigger than this are not a panel's "ok"; the connection is dropped. */
const MAX_HEAD = 16 * 1024;
const MAX_BODY = MAX_PEER_ANSWER_BYTES;

/** An answer over the limit: the connection ends with the reason `answer_too_large`. */
class TooLarge extends Error {
  constructor(what: AnswerPart) {
    super(panelFailureText.answerTooLarge(what, MAX_BODY / 1024));
  }
}
/** A kept-alive connection idle this long is replaced, not reused: the panel may be closing it. */
const IDLE_MS = 1_000;

type Answer = string | undefined;

export function pipelinedPanelTransport(opts: { timeoutMs: number }): PanelTransport {
  let conn: Connection | undefined;
  let closed = false;
  let oneAtATime = false;
  return {
    async post(url, bodies) {
      closed = false;
      const target = new URL(url);
      const results: Answer[] = [];
      let retriedStale = false;
      while (results.length < bodies.length) {
        const window = oneAtATime ? 1 : bodies.length;
        if (closed) return fill(results, bodies.length, panelFailureText.interrupted);
        if (!conn || !conn.usable(target.origin)) {
          conn?.destroy();
          conn = new Connection(target, opts.timeoutMs);
        }
        const current = conn;
        const reused = current.answered > 0;
        const { answers, error } = await current.send(
          target,
          bodies.slice(results.length, results.length + window),
        );
        results.push(...answers);
        // A panel that closes after each answer may have read (and shown) the requests behind
        // it without answering them: from now on it gets one request per connection.
        oneAtATime ||= current.closedByPanel;
        if (error === undefined) continue;
        if (closed) return fill(results, bodies.length, panelFailureText.interrupted);
        // Nothing answered on a connection that had served before: most likely the panel
        // closed it while idle. Once, the rest goes again on a fresh one (delivery is at least
        // once anyway). Progress (the panel closing after some answers) also earns a new one;
        // a panel too slow to answer does not.
        if (!current.timedOut && (answers.length > 0 || (reused && !retriedStale))) {
          retriedStale ||= answers.length === 0;
          continue;
        }
        return fill(results, bodies.length, error);
      }
      return results;
    },
    close() {
      closed = true;
      conn?.destroy(panelFailureText.interrupted);
      conn = undefined;
    },
  };
}

function fill(results: Answer[], length: number, error: string): Answer[] {
  while (results.length < length) results.push(error);
  return results;
}

class Connection {
  answered = 0;
  timedOut = false;
  closedByPanel = false;
  private readonly socket: net.Socket;
  private readonly origin: string;
  private buf: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void)[] = [];
  private failWaiting: ((error: string) => void) | undefined;
  private ended: string | undefined;
  private idleSince = Date.now();
  private timer: NodeJS.Timeout | undefined;
  /** The response being read: its status and how its body ends. */
  private head: { status: number; length: number | 'chunked' | 'close'; close: boolean } | null =
    null;
  /** Body bytes of the current chunked answer so far. */
  private chunkedBytes = 0;

  constructor(
    target: URL,
    private readonly timeoutMs: number,
  ) {
    this.origin = target.origin;
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    const host = target.hostname.replace(/^\[|\]$/g, '');
    this.socket =
      target.protocol === 'https:'
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
        : net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) =>
      this.end(panelFailureText.unreachable(err.code ?? err.message)),
    );
    this.socket.on('close', () => this.end(panelFailureText.closed));
    this.socket.on('end', () => {
      if (this.head?.length === 'close') this.complete(this.buf.length);
      this.end(panelFailureText.closed);
    });
  }

  usable(origin: string): boolean {
    return (
      this.ended === undefined &&
      origin === this.origin &&
      this.waiting.length === 0 &&
      Date.now() - this.idleSince < IDLE_MS
    );
  }

  /** Writes every request at once and collects the statuses until all came or the end. */
  send(target: URL, bodies: string[]): Promise<{ answers: Answer[]; error?: string }> {
    const answers: Answer[] = [];
    return new Promise((resolve) => {
      if (this.ended !== undefined) {
        resolve({ answers, error: this.ended });
        return;
      }
      const path = `${target.pathname}${target.search}`;
      const host = target.host;
      const requests = bodies.map(
        (body) =>
          `POST ${path} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      this.waiting = bodies.map(() => (status: number) => {
        answers.push(
          status >= 200 && status < 300 ? undefined : panelFailureText.httpStatus(status),
        );
        if (answers.length === bodies.length) {
          this.failWaiting = undefined;
          this.idleSince = Date.now();
          clearTimeout(this.timer);
          resolve({ answers });
        } else {
          this.arm();
        }
      });
      this.failWaiting = (error) => resolve({ answers, error });
      this.arm();
      this.socket.write(requests.join(''));
    });
  }

  destroy(reason: string = panelFailureText.connectionReplaced): void {
    this.end(reason);
    this.socket.destroy();
  }

  /** The panel has `timeoutMs` for each answer (a long batch to a slow panel is not a fault). */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.end(panelFailureText.timeout(this.timeoutMs));
      this.socket.destroy();
    }, this.timeoutMs);
  }

  private end(reason: string): void {
    clearTimeout(this.timer);
    if (this.ended === undefined) this.ended = reason;
    this.waiting = [];
    const fail = this.failWaiting;
    this.failWaiting = undefined;
    fail?.(this.ended);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    try {
      while (this.ended === undefined && this.step());
    } catch (err) {
      this.destroy(
        err instanceof TooLarge ? err.message : panelFailureText.unreadable((err as Error).message),
      );
    }
  }

  /** Consumes one piece of the response stream; false when more bytes are needed. */
  private step(): boolean {
    if (!this.head) {
      const at = this.buf.indexOf('\r\n\r\n');
      if (at < 0) {
        if (this.buf.length > MAX_HEAD) throw new TooLarge('header');
        return false;
      }
      const lines = this.buf.subarray(0, at).toString('latin1').split('\r\n');
      this.buf = this.buf.subarray(at + 4);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1];
      if (!status) throw new Error('no status line');
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0)
          headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const code = Number(status);
      if (code >= 100 && code < 200) return true; // 100 Continue and the like: the answer follows
      const chunked = /chunked/i.test(headers.get('transfer-encoding') ?? '');
      const declared = headers.get('content-length');
      const length =
        code === 204 || code === 304
          ? 0
          : chunked
            ? ('chunked' as const)
            : declared !== undefined
              ? Number(declared)
              : ('close' as const);
      if (typeof length === 'number' && !(length >= 0)) throw new Error('bad content-length');
      if (typeof length === 'number' && length > MAX_BODY) throw new TooLarge('answer');
      const close = /close/i.test(headers.get('connection') ?? '') || length === 'close';
      this.head = { status: code, length, close };
      return true;
    }
    const { length } = this.head;
    if (length === 'close') {
      // Read until the panel closes, but never hold more than an answer may be.
      if (this.buf.length > MAX_BODY) throw new TooLarge('answer');
      return false;
    }
    if (length === 'chunked') return this.chunk();
    if (this.buf.length < length) return false;
    this.complete(length);
    return true;
  }

  /** Skips one chunk of a chunked body (its content does not matter); completes at the last. */
  private chunk(): boolean {
    const eol = this.buf.indexOf('\r\n');
    if (eol < 0) {
      if (this.buf.length > MAX_HEAD) throw new TooLarge('chunk header');
      return false;
    }
    const size = parseInt(this.buf.subarray(0, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size < 0) throw new Error('bad chunk size');
    if (this.chunkedBytes + size > MAX_BODY) throw new TooLarge('answer');
    if (size === 0) {
      // Optional trailers, then an empty line.
      const end = this.buf.indexOf('\r\n\r\n', eol);
      if (end < 0) return false;
      this.complete(end + 4);
      return true;
    }
    if (this.buf.length < eol + 2 + size + 2) return false;
    this.chunkedBytes += size;
    this.buf = this.buf.subarray(eol + 2 + size + 2);
    return true;
  }

  private complete(consumed: number): void {
    const head = this.head!;
    this.buf = this.buf.subarray(consumed);
    this.head = null;
    this.chunkedBytes = 0;
    this.answered++;
    const next = this.waiting.shift();
    next?.(head.status);
    if (head.close) {
      this.closedByPanel = true;
      this.destroy(panelFailureText.closed);
    }
  }
}
