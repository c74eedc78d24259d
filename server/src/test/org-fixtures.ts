import { randomUUID } from 'node:crypto';
import type { AdminRole } from '@svc/shared';
import type { Resource } from '../platform/http/api.js';
import type { TestServer } from './harness.js';
import { TestClient } from './http-client.js';
import { factories, SIGNED_IN_PASSWORD } from './factories.js';
import { sampleJpeg } from './samples.js';

/**
 * An organization with one row of every kind a route's `:id` may name (generated data only),
 * made through the models directly so the tests do not depend on the routes they test.
 */
export interface OrgRows {
  organizationId: string;
  ids: Record<Resource, string>;
  /** Whether the person got a stored photo (the photo store may refuse in a broken build). */
  personHasPhoto: boolean;
}

export async function seededOrganizationId(server: TestServer): Promise<string> {
  const org = await server.ctx.models.Organization.findOne({ order: [['createdAt', 'ASC']] });
  return org!.id;
}

export async function createOrganization(server: TestServer, name: string): Promise<string> {
  return (await factories(server).buildOrganization({ name })).id;
}

export async function createAdministrator(
  server: TestServer,
  organizationId: string,
  role: AdminRole,
  username?: string,
): Promise<string> {
  const admin = await factories(server).buildAdministrator({
    organizationId,
    role,
    ...(username && { username }),
  });
  return admin.id;
}

/** An administrator of `organizationId`, signed in. */
export async function signedInAt(
  server: TestServer,
  organizationId: string,
  role: AdminRole,
  baseUrl = server.url,
): Promise<TestClient> {
  const username = `${role}-${randomUUID().slice(0, 8)}`;
  await createAdministrator(server, organizationId, role, username);
  const client = new TestClient(baseUrl);
  const login = await client.login(username, SIGNED_IN_PASSWORD);
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);
  return client;
}

export async function createRows(server: TestServer, organizationId: string): Promise<OrgRows> {
  const { models } = server.ctx;
  const build = factories(server);
  const now = server.ctx.clock.now();
  const tag = randomUUID().slice(0, 8);
  const space = await build.buildSpace({ organizationId, name: `Sample site ${tag}` });
  const photoSha256 = await server.ctx.photos
    .ingest(await sampleJpeg())
    .then((stored) => stored.sha256)
    .catch(() => null);
  const person = await build.buildPerson({
    organizationId,
    name: `Sample Person ${tag}`,
    idNumber: `S${tag}`,
    photoSha256,
    spaceIds: [space.id],
  });
  const device = await build.buildDevice({
    organizationId,
    sn: `SN-${tag}`,
    name: `Sample device ${tag}`,
    spaceId: space.id,
    baseUrl: 'http://192.0.2.10:8080',
  });
  const administrator = await createAdministrator(server, organizationId, 'admin');
  const importJob = await models.ImportJob.create({
    id: randomUUID(),
    organizationId,
    createdBy: null,
    state: 'succeeded',
    total: 0,
    processed: 0,
    succeeded: 0,
    failed: 0,
    errors: '[]',
    createdAt: now,
    finishedAt: now,
  });
  const syncTask = await models.SyncTask.create({
    id: randomUUID(),
    organizationId,
    personId: person.id,
    deviceId: device.id,
    action: 'put',
    lane: 'priority',
    state: 'succeeded',
    personVersion: person.version,
    photoSha256,
    attempts: 0,
    nextAttemptAt: now,
    resultVersion: person.version,
    resultPhotoSha256: photoSha256,
    errorCode: null,
    errorMessage: null,
    errorParams: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: now,
  });
  const recognitionEvent = await models.RecognitionEvent.create({
    id: randomUUID(),
    eventId: `sample-${tag}`,
    organizationId,
    deviceId: device.id,
    deviceSn: device.sn,
    deviceName: device.name,
    personId: person.id,
    personName: person.name,
    spaceId: space.id,
    spaceName: space.name,
    score: 0.9,
    time: now,
    receivedAt: now,
    // The sample photo stands in for a snapshot, so the snapshot route has a file to serve.
    snapshotSha256: photoSha256,
    deliveryState: 'none',
    deliveryAttempts: 0,
    nextDeliveryAt: null,
    deliveredAt: null,
    deliveryError: null,
  });
  const enrollmentChange = await models.EnrollmentChange.create({
    id: randomUUID(),
    organizationId,
    personId: person.id,
    terminalId: `ENR-${tag}`,
    ip: '192.0.2.20',
    state: 'pending',
    oldName: person.name,
    newName: `${person.name} (re-enrolled)`,
    oldPhotoSha256: photoSha256,
    // The sample photo stands in for the new one, so the photo route has a file to serve.
    newPhotoSha256: photoSha256 ?? '0'.repeat(64),
    createdAt: now,
    decidedAt: null,
    decidedBy: null,
  });
  return {
    organizationId,
    personHasPhoto: photoSha256 !== null,
    ids: {
      person: person.id,
      space: space.id,
      device: device.id,
      administrator,
      organization: organizationId,
      import: importJob.id,
      syncTask: syncTask.id,
      recognitionEvent: recognitionEvent.id,
      enrollmentChange: enrollmentChange.id,
    },
  };
}
