import type { TestClient } from './http-client.js';

/** A session's Server-Sent Events stream, read block by block (blocks end with a blank line). */
export interface EventStream {
  status: number;
  contentType: string | null;
  /** The next block (`event: …\ndata: …`, or a `: comment`). */
  next(): Promise<string>;
  close(): void;
}

export async function openEventStream(
  baseUrl: string,
  client: TestClient,
  path = '/api/recognition/stream',
): Promise<EventStream> {
  const cookie = ['svc_session', 'svc_csrf']
    .map((n) => (client.cookie(n) ? `${n}=${client.cookie(n)}` : ''))
    .filter(Boolean)
    .join('; ');
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}${path}`, { headers: { cookie }, signal: abort.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    async next() {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          return block;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += decoder.decode(value, { stream: true });
      }
    },
    close: () => abort.abort(),
  };
}
