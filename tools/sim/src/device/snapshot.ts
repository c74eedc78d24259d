/**
 * A tiny baseline JPEG encoder for recognition snapshots: grayscale, one gray level per 8×8 block
 * (DC coefficients only), so the simulator ships no image files and no picture of a real person.
 */

// Annex K.3 luminance DC table: code lengths 1..16 and the categories they encode.
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
// Every block's AC part is end-of-block only, so the AC table needs that one symbol.
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const AC_VALUES = [0x00];

interface Code {
  code: number;
  length: number;
}

/** Canonical Huffman codes from a DHT bit-count list (JPEG Annex C). */
function huffmanCodes(bits: number[], values: number[]): Map<number, Code> {
  const codes = new Map<number, Code>();
  let code = 0;
  let k = 0;
  bits.forEach((count, index) => {
    for (let i = 0; i < count; i++)
      codes.set(values[k++] ?? 0, { code: code++, length: index + 1 });
    code <<= 1;
  });
  return codes;
}

class BitWriter {
  readonly bytes: number[] = [];
  private buffer = 0;
  private count = 0;

  write(value: number, length: number): void {
    for (let bit = length - 1; bit >= 0; bit--) {
      this.buffer = (this.buffer << 1) | ((value >> bit) & 1);
      this.count += 1;
      if (this.count === 8) this.flushByte();
    }
  }

  /** Pads the last byte with 1 bits, as the standard asks. */
  finish(): number[] {
    while (this.count !== 0) this.write(1, 1);
    return this.bytes;
  }

  private flushByte(): void {
    this.bytes.push(this.buffer);
    // A 0xFF in entropy-coded data is stuffed with 0x00 so it cannot be read as a marker.
    if (this.buffer === 0xff) this.bytes.push(0x00);
    this.buffer = 0;
    this.count = 0;
  }
}

function segment(marker: number, payload: number[]): number[] {
  const length = payload.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...payload];
}

function category(value: number): number {
  let magnitude = Math.abs(value);
  let bits = 0;
  while (magnitude > 0) {
    bits += 1;
    magnitude >>= 1;
  }
  return bits;
}

/**
 * Encodes a grayscale image whose `shade(column, row)` gives each 8×8 block's gray level (0–255).
 * `width` and `height` are in pixels and must be multiples of 8.
 */
export function encodeBlockJpeg(
  width: number,
  height: number,
  shade: (column: number, row: number) => number,
): Buffer {
  if (width % 8 !== 0 || height % 8 !== 0 || width <= 0 || height <= 0 || width > 0xffff) {
    throw new RangeError('width and height must be positive multiples of 8');
  }
  const dc = huffmanCodes(DC_BITS, DC_VALUES);
  const ac = huffmanCodes(AC_BITS, AC_VALUES);
  const eob = ac.get(0x00) as Code;
  const writer = new BitWriter();
  let previous = 0;
  for (let row = 0; row < height / 8; row++) {
    for (let column = 0; column < width / 8; column++) {
      const gray = Math.min(255, Math.max(0, Math.round(shade(column, row))));
      // The DC coefficient of a flat block is 8 × (level − 128); the quantizer is 1.
      const coefficient = 8 * (gray - 128);
      const diff = coefficient - previous;
      previous = coefficient;
      const size = category(diff);
      const code = dc.get(size) as Code;
      writer.write(code.code, code.length);
      if (size > 0) writer.write(diff > 0 ? diff : diff + (1 << size) - 1, size);
      writer.write(eob.code, eob.length);
    }
  }

  const jfif = [0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0, 0];
  const quantization = [0x00, ...new Array<number>(64).fill(1)];
  const frame = [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0];
  const dcTable = [0x00, ...DC_BITS, ...DC_VALUES];
  const acTable = [0x10, ...AC_BITS, ...AC_VALUES];
  const scan = [1, 1, 0x00, 0, 63, 0];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xe0, jfif),
    ...segment(0xdb, quantization),
    ...segment(0xc0, frame),
    ...segment(0xc4, dcTable),
    ...segment(0xc4, acTable),
    ...segment(0xda, scan),
    ...writer.finish(),
    0xff,
    0xd9,
  ]);
}

export const SNAPSHOT_SIZE = 96;

/** A 96×96 gray placeholder silhouette (head and shoulders): clearly synthetic, never a person. */
export function placeholderSnapshot(): Buffer {
  const blocks = SNAPSHOT_SIZE / 8;
  return encodeBlockJpeg(SNAPSHOT_SIZE, SNAPSHOT_SIZE, (column, row) => {
    const x = column + 0.5 - blocks / 2;
    const headY = row + 0.5 - blocks * 0.38;
    const bodyY = row + 0.5 - blocks;
    if (x * x + headY * headY <= (blocks * 0.2) ** 2) return 80;
    if ((x * x) / (blocks * 0.42) ** 2 + (bodyY * bodyY) / (blocks * 0.35) ** 2 <= 1) return 80;
    return 200 - row * 4;
  });
}
