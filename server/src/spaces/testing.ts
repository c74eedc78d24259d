import { randomBytes, randomUUID } from 'node:crypto';
import type { TestServer } from '../test/harness.js';

/** A second organization for cross-organization tests; returns its id. */
export async function secondOrganization(server: TestServer, name = 'Other org'): Promise<string> {
  const now = server.ctx.clock.now();
  const id = randomUUID();
  await server.ctx.models.Organization.create({ id, name, createdAt: now, updatedAt: now });
  return id;
}

/** A recognition device row in a space (no key anyone could use). */
export async function deviceIn(
  server: TestServer,
  organizationId: string,
  spaceId: string | null,
): Promise<string> {
  const now = server.ctx.clock.now();
  const id = randomUUID();
  await server.ctx.models.Device.create({
    id,
    organizationId,
    sn: `SN-${randomBytes(6).toString('hex')}`,
    name: 'Test device',
    model: '',
    spaceId,
    baseUrl: 'http://127.0.0.1:9',
    enabled: true,
    capacity: null,
    maxPhotoBytes: null,
    maxPhotoPixels: null,
    keyHash: randomBytes(32).toString('hex'),
    keyRotatedAt: now,
    lastHeartbeatAt: null,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}
