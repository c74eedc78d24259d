import { ManualClock } from '../../platform/clock.js';
import { deletePerson, updatePerson } from '../../people/service.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import { desiredFingerprint, FingerprintReader } from './fingerprint.js';
import { addPerson, createSpace, organizationOf } from '../../test/sync-setup.js';

/**
 * The worker's fingerprint reader reads every person only now and then; between those reads
 * it must still give exactly what a full read gives after every change the API can make.
 */
describe.each(DIALECTS)('the fingerprint reader (%s)', (dialect) => {
  let server: TestServer;
  let org: string;
  let space: string;
  const actor = () => ({ actor: { id: null, name: 'test' }, organizationId: org });
  const clock = new ManualClock();

  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    server = suite.server;
    space = await createSpace(await signedIn(server, 'admin'), 'Fingerprint hall');
    org = await organizationOf(server, space);
  });

  const full = () => desiredFingerprint(server.ctx, clock.now());

  test('equal to a full read after a creation, an edit, a deletion — the clock standing still', async () => {
    // Long between full reads: only the cheap check can notice these.
    const reader = new FingerprintReader(server.ctx, 3_600_000);
    const first = await reader.read(clock.now());
    expect(first).toBe(await full());

    const a = await addPerson(server, org, [space]);
    const created = await reader.read(clock.now());
    expect(created).not.toBe(first);
    expect(created).toBe(await full());

    await updatePerson(server.ctx, org, a.id, { name: 'Renamed in the same millisecond' }, actor());
    const edited = await reader.read(clock.now());
    expect(edited).not.toBe(created);
    expect(edited).toBe(await full());

    await deletePerson(server.ctx, org, a.id, actor());
    const deleted = await reader.read(clock.now());
    expect(deleted).not.toBe(edited);
    expect(deleted).toBe(await full());
  });

  test('a validity boundary passing is seen without any row changing', async () => {
    const reader = new FingerprintReader(server.ctx, 3_600_000);
    const b = await addPerson(server, org, [space]);
    await updatePerson(
      server.ctx,
      org,
      b.id,
      { validFrom: new Date(clock.now().getTime() + 60_000).toISOString() },
      actor(),
    );
    const before = await reader.read(clock.now());
    expect(before).toBe(await full());
    clock.advance(30_000);
    expect(await reader.read(clock.now())).toBe(before);
    clock.advance(31_000);
    const opened = await reader.read(clock.now());
    expect(opened).not.toBe(before);
    expect(opened).toBe(await full());
  });

  test('what only a full read sees waits for the next one', async () => {
    const c = await addPerson(server, org, [space]);
    // Stamped long ago (a clock that stepped back): outside the range the cheap check reads.
    const old = new Date('2020-01-01T00:00:00.000Z');
    await server.ctx.models.Person.update(
      { updatedAt: old },
      { where: { id: c.id }, silent: true },
    );
    const cached = new FingerprintReader(server.ctx, 3_600_000);
    const always = new FingerprintReader(server.ctx, 0);
    const before = await cached.read(clock.now());
    expect(await always.read(clock.now())).toBe(before);
    await server.ctx.models.Person.update(
      { version: 99, updatedAt: old },
      { where: { id: c.id }, silent: true },
    );
    expect(await cached.read(clock.now())).toBe(before);
    const seen = await always.read(clock.now());
    expect(seen).not.toBe(before);
    expect(seen).toBe(await full());
  });
});
