import { SEEDED_ADMIN_USERNAME, userResponse, type AdminRole } from '@svc/shared';
import { factories, SIGNED_IN_PASSWORD } from './factories.js';
import type { TestServer } from './harness.js';
import { TestClient } from './http-client.js';

export { SIGNED_IN_PASSWORD };

/** Creates an administrator (of the seeded organization unless told) and returns a signed-in client. */
export async function signedIn(
  server: TestServer,
  role: AdminRole,
  username?: string,
  /** Another organization than the seeded one (cross-organization tests). */
  organizationId?: string,
) {
  // The seeded organization is the seeded `admin`'s: with a second organization present, a
  // bare findOne() could return either (MySQL orders by the random uuid).
  const seeded = await server.ctx.models.Administrator.findOne({
    where: { username: SEEDED_ADMIN_USERNAME },
  });
  const admin = await factories(server).buildAdministrator({
    organizationId: organizationId ?? seeded!.organizationId,
    role,
    ...(username && { username }),
  });
  const client = new TestClient(server.url);
  const login = await client.login(admin.username, SIGNED_IN_PASSWORD);
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);
  return client;
}

/** The organization a signed-in client works in, as its /api/auth/me says. */
export async function myOrganization(client: TestClient): Promise<string> {
  return userResponse.parse((await client.get('/api/auth/me')).body).user.organizationId;
}
