import sharp from 'sharp';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE } from '@svc/shared';
import { factories } from './factories.js';
import type { TestServer } from './harness.js';
import type { TestClient } from './http-client.js';

/**
 * Generated test images: flat colours and noise, never a face or anyone's data. The GPS
 * position is a made-up point.
 */

/** A landscape JPEG whose EXIF says "rotate 90°" and carries a GPS position and a camera name. */
export function jpegWithGps(width = 1600, height = 900): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Unit 7' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '12/1 34/1 56/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '65/1 43/1 21/1',
      },
    })
    .toBuffer();
}

export function plainJpeg(width: number, height: number, red = 200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: red, g: 90, b: 40 } } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

export function transparentPng(width = 300, height = 200): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 4, background: { r: 10, g: 200, b: 10, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
}

/** Random noise does not compress: a PNG of at least `bytes` bytes. */
export async function hugePng(bytes = 20 * 1024 * 1024): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 3)) + 16;
  const png = await sharp({
    create: {
      width: side,
      height: side,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 128, sigma: 90 },
    },
  })
    .png({ compressionLevel: 1 })
    .toBuffer();
  if (png.length < bytes) throw new Error(`noise PNG only ${png.length} bytes`);
  return png;
}

/** A small file that claims 10 000 × 10 000 pixels (a decompression bomb). */
export function pixelBombPng(): Promise<Buffer> {
  return sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#000' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** EXIF tag 0x8825 (the GPS IFD pointer), as it appears in little-endian EXIF. */
export const hasGpsTag = (exif: Buffer | undefined) =>
  exif !== undefined && exif.includes(Buffer.from([0x25, 0x88]));

/** A request with a binary or FormData body, carrying the client's session and CSRF token. */
export async function send(
  client: TestClient,
  method: string,
  path: string,
  body: Buffer | FormData | string | undefined,
  headers: Record<string, string> = {},
) {
  const token = await client.csrf();
  const cookie = [SESSION_COOKIE, CSRF_COOKIE]
    .map((name) => [name, client.cookie(name)])
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
  const res = await fetch(client.baseUrl + path, {
    method,
    headers: { cookie, [CSRF_HEADER]: token, ...headers },
    body,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.includes('application/json')
    ? (JSON.parse(bytes.toString('utf8')) as {
        photoSha256?: string;
        error?: { code: string; message: string };
      })
    : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

export const putPhoto = (
  client: TestClient,
  personId: string,
  image: Buffer,
  type = 'image/jpeg',
) => send(client, 'PUT', `/api/people/${personId}/photo`, image, { 'content-type': type });

/** A person row straight through the model (the people API is another feature's). */
export async function person(server: TestServer, organizationId: string): Promise<string> {
  return (await factories(server).buildPerson({ organizationId })).id;
}
