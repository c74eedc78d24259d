import { randomUUID } from 'node:crypto';
import { SEEDED_ADMIN_USERNAME, type AdminRole } from '@svc/shared';
import { hashPassword } from '../auth/passwords.js';
import type { TestServer } from './harness.js';
import { TestClient } from './http-client.js';

export const SIGNED_IN_PASSWORD = 'granite pelican sunrise forty';

/** Creates an administrator (of the seeded organization unless told) and returns a signed-in client. */
export async function signedIn(
  server: TestServer,
  role: AdminRole,
  username = `${role}-${randomUUID().slice(0, 8)}`,
  /** Another organization than the seeded one (cross-organization tests). */
  organizationId?: string,
) {
  // The seeded organization is the seeded `admin`'s: with a second organization present, a
  // bare findOne() could return either (MySQL orders by the random uuid).
  const seeded = await server.ctx.models.Administrator.findOne({
    where: { username: SEEDED_ADMIN_USERNAME },
  });
  const org = await server.ctx.models.Organization.findByPk(
    organizationId ?? seeded?.organizationId ?? '',
  );
  const now = server.ctx.clock.now();
  await server.ctx.models.Administrator.create({
    id: randomUUID(),
    organizationId: org!.id,
    username,
    displayName: username,
    role,
    passwordHash: await hashPassword(SIGNED_IN_PASSWORD),
    mustChangePassword: false,
    disabled: false,
    passwordChangedAt: null,
    lastLoginAt: null,
    createdAt: now,
    updatedAt: now,
  });
  const client = new TestClient(server.url);
  const login = await client.login(username, SIGNED_IN_PASSWORD);
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);
  return client;
}
