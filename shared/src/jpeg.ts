/**
 * What a JPEG's frame header says, read from its bytes without decoding the image: the
 * encoding process (baseline or not) and the chroma subsampling. Recognition devices often
 * accept only baseline JPEGs with 4:2:0 chroma; the central service makes photos that way and
 * the simulated device checks it (PROTOCOL §3, device photo limits).
 */
export interface JpegFrame {
  width: number;
  height: number;
  /** SOF0: baseline sequential DCT (not extended, progressive, lossless or arithmetic). */
  baseline: boolean;
  /** '4:2:0', '4:2:2', '4:4:4', 'gray' or 'other' (the components' sampling factors). */
  subsampling: '4:2:0' | '4:2:2' | '4:4:4' | 'gray' | 'other';
}

/** Start-of-frame markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
const isFrameMarker = (m: number) =>
  m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** The frame header of a JPEG, or undefined when the bytes are not a JPEG with one. */
export function jpegFrame(bytes: Uint8Array): JpegFrame | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  const u16 = (at: number) => (bytes[at]! << 8) | bytes[at + 1]!;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    // Fill bytes and markers without a length (RSTn, TEM).
    if (marker === 0xff || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    // Start of scan or end of image before any frame header: not a usable JPEG.
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = u16(at + 2);
    if (length < 2 || at + 2 + length > bytes.length) return undefined;
    if (isFrameMarker(marker)) return readFrame(bytes, at + 4, length - 2, marker === 0xc0);
    at += 2 + length;
  }
  return undefined;
}

function readFrame(
  bytes: Uint8Array,
  at: number,
  length: number,
  baseline: boolean,
): JpegFrame | undefined {
  if (length < 6) return undefined;
  const height = (bytes[at + 1]! << 8) | bytes[at + 2]!;
  const width = (bytes[at + 3]! << 8) | bytes[at + 4]!;
  const count = bytes[at + 5]!;
  if (length < 6 + 3 * count || count === 0) return undefined;
  const factors = Array.from({ length: count }, (_, i) => {
    const hv = bytes[at + 6 + 3 * i + 1]!;
    return [hv >> 4, hv & 0x0f] as const;
  });
  return { width, height, baseline, subsampling: subsamplingOf(factors) };
}

function subsamplingOf(factors: readonly (readonly [number, number])[]): JpegFrame['subsampling'] {
  if (factors.length === 1) return 'gray';
  if (factors.length !== 3) return 'other';
  const [[yh, yv], cb, cr] = factors as [[number, number], [number, number], [number, number]];
  if (cb[0] !== cr[0] || cb[1] !== cr[1]) return 'other';
  const h = yh / cb[0];
  const v = yv / cb[1];
  if (h === 2 && v === 2) return '4:2:0';
  if (h === 2 && v === 1) return '4:2:2';
  if (h === 1 && v === 1) return '4:4:4';
  return 'other';
}
