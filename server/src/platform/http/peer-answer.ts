/**
 * The most this service reads of one answer from a device, terminal or panel. Every answer
 * PROTOCOL §2–§4 defines is a short JSON object (a saved config, a person's state, an error),
 * so this is far above any honest answer and far below what would hurt the process: a peer
 * that answers more is refused rather than read whole.
 */
export const MAX_PEER_ANSWER_BYTES = 64 * 1024;

/** The reason a call fails with when the peer's answer is over the limit. */
export const ANSWER_TOO_LARGE = 'answer_too_large';

export class AnswerTooLarge extends Error {
  readonly reason = ANSWER_TOO_LARGE;
  constructor(readonly limit: number) {
    super(`${ANSWER_TOO_LARGE}: the answer is larger than ${limit / 1024} KiB`);
    this.name = 'AnswerTooLarge';
  }
}

/**
 * A fetch answer's body as text, at most `limit` bytes: a larger declared length is refused
 * before reading, and a body that grows past the limit is cancelled as soon as it does.
 */
export async function readCapped(
  res: Response,
  limit: number = MAX_PEER_ANSWER_BYTES,
): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new AnswerTooLarge(limit);
  }
  if (!res.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
