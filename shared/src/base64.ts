/** The language of base64 text the contracts accept: the alphabet, then at most two `=`. */
export const BASE64_PATTERN = '^[A-Za-z0-9+/]*={0,2}$';
const BASE64_TEXT = new RegExp(BASE64_PATTERN);

interface Base64Codec {
  from(text: string, encoding: 'base64'): { toString(encoding: 'base64'): string };
}
// Node's Buffer where there is one (server, simulator, console main); browsers use the regex.
const codec = (globalThis as { Buffer?: Base64Codec }).Buffer;

/**
 * Whether `text` is base64 (exactly the strings `BASE64_PATTERN` matches). Photos of 20 KB
 * arrive with every device push, and the regex spent ~30–130 µs on each (a third of a
 * simulated device's CPU in the synchronization benchmark). Text that a decode and re-encode
 * give back unchanged is canonical base64, which the pattern always matches, at a fifth of the
 * regex's cost; anything else (unpadded, line breaks, stray characters) is left to the regex.
 */
export function isBase64(text: string): boolean {
  if (codec && text.length >= 256 && codec.from(text, 'base64').toString('base64') === text) {
    return true;
  }
  return BASE64_TEXT.test(text);
}
