import { randomUUID } from 'node:crypto';
import { UniqueConstraintError } from 'sequelize';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';

describe.each(DIALECTS)('event writer (group commit) on %s', (dialect) => {
  const suite = suiteServer(dialect);

  const values = (eventId: string) => ({
    id: randomUUID(),
    eventId,
    organizationId: randomUUID(),
    deviceId: null,
    deviceSn: 'WRITER-1',
    deviceName: 'Sample gate',
    personId: null,
    personName: null,
    spaceId: null,
    spaceName: null,
    score: 0.5,
    time: new Date(),
    receivedAt: new Date(),
    reportedTime: null,
    snapshotSha256: null,
    deliveryState: 'none' as const,
    deliveryAttempts: 0,
    nextDeliveryAt: null,
    deliveredAt: null,
    deliveryError: null,
  });

  test('events added together are all stored; a duplicate among them fails alone', async () => {
    const writer = suite.server.ctx.recognition.writer;
    const taken = randomUUID();
    await writer.add(values(taken));
    const fresh = Array.from({ length: 20 }, () => randomUUID());
    // Added in one turn: they share one write, which the duplicate makes fail as a whole.
    const results = await Promise.allSettled([
      ...fresh.slice(0, 10).map((id) => writer.add(values(id))),
      writer.add(values(taken)),
      ...fresh.slice(10).map((id) => writer.add(values(id))),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueConstraintError);
    expect(results[10]!.status).toBe('rejected');
    const stored = await suite.server.ctx.models.RecognitionEvent.findAll({
      where: { eventId: fresh },
    });
    expect(stored.map((r) => r.eventId).sort()).toEqual([...fresh].sort());
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    expect(fulfilled.map((r) => r.value.eventId).sort()).toEqual([...fresh].sort());
  });
});
