import { createHmac } from 'node:crypto';

/** RFC 4648 base32 (the key an authenticator app is given) to bytes. */
function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of text.replace(/=+$/, '').toUpperCase()) {
    const value = alphabet.indexOf(ch);
    if (value < 0) throw new Error(`not base32: ${ch}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => parseInt(b, 2)));
}

/**
 * What an authenticator app shows (RFC 6238: SHA-1, 6 digits, 30 s) at `ms`, written out
 * here so the test does not share the server's library.
 */
export function totpAt(secret: string, ms: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}
