import { randomBytes, randomUUID } from 'node:crypto';
import type { AdminRole } from '@svc/shared';
import { hashPassword } from '../auth/passwords.js';
import type { DeviceRow, PersonRow, SpaceRow } from '../platform/db/business-models.js';
import type { AdministratorRow, OrganizationRow } from '../platform/db/models.js';
import { nameKey } from '../people/keys.js';
import type { TestServer } from './harness.js';

/** The password of every administrator the tests make (a generated passphrase, no one's). */
export const SIGNED_IN_PASSWORD = 'granite pelican sunrise forty';

/**
 * Rows for a test, outline-style: `build.person({})` makes a person and whatever it needs that
 * the test did not name (its organization; a device's space). A parent is taken from what was
 * named when it can be (a space given → its organization), otherwise made fresh, so a test names
 * only what it checks. Straight through the models: no route under test is used to set up.
 * Generated data only.
 */
export function factories(server: Pick<TestServer, 'ctx'>) {
  const { models, clock } = server.ctx;
  const tag = () => randomBytes(4).toString('hex');
  const stamps = () => {
    const now = clock.now();
    return { createdAt: now, updatedAt: now };
  };

  async function organizationOf(o: {
    organizationId?: string;
    spaceId?: string | null;
  }): Promise<string> {
    if (o.organizationId) return o.organizationId;
    if (o.spaceId) return (await models.Space.findByPk(o.spaceId))!.organizationId;
    return (await buildOrganization()).id;
  }

  async function buildOrganization(o: { name?: string } = {}): Promise<OrganizationRow> {
    return models.Organization.create({
      id: randomUUID(),
      name: o.name ?? `Sample org ${tag()}`,
      ...stamps(),
    });
  }

  async function buildSpace(
    o: { organizationId?: string; parentId?: string | null; name?: string } = {},
  ): Promise<SpaceRow> {
    return models.Space.create({
      id: randomUUID(),
      organizationId: await organizationOf({
        ...(o.organizationId && { organizationId: o.organizationId }),
        spaceId: o.parentId ?? null,
      }),
      parentId: o.parentId ?? null,
      name: o.name ?? `Sample space ${tag()}`,
      ...stamps(),
    });
  }

  /** A person with access to `spaceIds` (none unless named), in their organization. */
  async function buildPerson(
    o: Partial<
      Pick<
        PersonRow,
        | 'organizationId'
        | 'name'
        | 'idNumber'
        | 'enabled'
        | 'photoSha256'
        | 'validFrom'
        | 'validUntil'
      >
    > & { spaceIds?: string[] } = {},
  ): Promise<PersonRow> {
    const { spaceIds = [], ...fields } = o;
    const organizationId = await organizationOf({
      ...(fields.organizationId && { organizationId: fields.organizationId }),
      spaceId: spaceIds[0] ?? null,
    });
    const name = fields.name ?? `Sample Person ${tag()}`;
    const person = await models.Person.create({
      id: randomUUID(),
      idNumber: `T${tag().toUpperCase()}`,
      phone: null,
      notes: null,
      validFrom: null,
      validUntil: null,
      enabled: true,
      photoSha256: null,
      ...fields,
      organizationId,
      name,
      nameKey: nameKey(name),
      ...stamps(),
    });
    for (const spaceId of spaceIds) {
      await models.PersonSpace.create({ personId: person.id, spaceId, nameKey: person.nameKey });
    }
    return person;
  }

  /**
   * A recognition device row (its key hash matches no key anyone holds). In a space made for it
   * unless `spaceId` is named (null: in none).
   */
  async function buildDevice(
    o: Partial<
      Pick<
        DeviceRow,
        'organizationId' | 'spaceId' | 'sn' | 'name' | 'baseUrl' | 'enabled' | 'lastHeartbeatAt'
      >
    > = {},
  ): Promise<DeviceRow> {
    const spaceId =
      o.spaceId !== undefined
        ? o.spaceId
        : (await buildSpace(o.organizationId ? { organizationId: o.organizationId } : {})).id;
    const now = clock.now();
    return models.Device.create({
      id: randomUUID(),
      sn: `SN-${tag()}`,
      name: 'Sample device',
      model: '',
      baseUrl: 'http://127.0.0.1:9',
      enabled: true,
      capacity: null,
      maxPhotoBytes: null,
      maxPhotoPixels: null,
      keyHash: randomBytes(32).toString('hex'),
      keyRotatedAt: now,
      lastHeartbeatAt: null,
      ...o,
      organizationId: await organizationOf({
        ...(o.organizationId && { organizationId: o.organizationId }),
        spaceId,
      }),
      spaceId,
      ...stamps(),
    });
  }

  /** An administrator whose password is SIGNED_IN_PASSWORD (TestClient.login). */
  async function buildAdministrator(
    o: { organizationId?: string; role?: AdminRole; username?: string } = {},
  ): Promise<AdministratorRow> {
    const role = o.role ?? 'admin';
    const username = o.username ?? `${role}-${tag()}`;
    return models.Administrator.create({
      id: randomUUID(),
      organizationId: await organizationOf(o),
      username,
      displayName: username,
      role,
      passwordHash: await hashPassword(SIGNED_IN_PASSWORD),
      mustChangePassword: false,
      disabled: false,
      passwordChangedAt: null,
      lastLoginAt: null,
      ...stamps(),
    });
  }

  return { buildOrganization, buildSpace, buildPerson, buildDevice, buildAdministrator };
}

/** A second organization for cross-organization tests; returns its id. */
export async function secondOrganization(server: TestServer, name = 'Other org'): Promise<string> {
  return (await factories(server).buildOrganization({ name })).id;
}
