import { randomBytes } from 'node:crypto';
import { parseDatagram, type DropReason } from '@svc/shared';
import { ManualClock } from '../platform/clock.js';
import { DIALECTS } from '../test/dialects.js';
import { discoverySuite } from '../test/discovery-suite.js';
import { TEST_ADMIN_PASSWORD } from '../test/harness.js';
import { withServer } from '../test/suite.js';
import { TestClient } from '../test/http-client.js';
import { udpPeer } from '../test/udp.js';
import { waitFor } from '../test/wait.js';

const announce = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    svc: 'discovery',
    v: 1,
    type: 'announce',
    id,
    kind: 'enrollment',
    port: 8182,
    ...extra,
  });

/** Junk of every kind PROTOCOL §1 says must be dropped, and mutations of a valid announce. */
function junk(i: number): Buffer {
  const valid = Buffer.from(announce(`J-${i}`, { name: 'x' }));
  switch (i % 8) {
    case 0:
      return randomBytes(1 + (i % 200));
    case 1:
      return valid.subarray(0, Math.max(1, i % valid.length));
    case 2:
      return Buffer.from(announce(`J-${i}`, { name: 'n'.repeat(900) }));
    case 3:
      return Buffer.from(
        JSON.stringify({ svc: 'discovery', v: 1, type: 'announce', id: i, kind: [], port: 'x' }),
      );
    case 4:
      return Buffer.alloc(i % 16 === 4 ? 65_000 : 2_000, 0x41);
    case 5: {
      const m = Buffer.from(valid);
      m[i % m.length] = i % 256;
      return m;
    }
    case 6:
      return Buffer.from(JSON.stringify({ svc: 'discovery', v: 2 + (i % 3), type: 'announce' }));
    default:
      return Buffer.from(i % 2 ? '[]' : 'null');
  }
}

describe.each(DIALECTS)('discovery worker on %s', (dialect) => {
  const clock = new ManualClock(new Date());
  const suite = discoverySuite(dialect, { clock, env: { WEB_PORT: '8080' } });

  const nodes = async () =>
    (await new TestClient(suite.server.url).get('/api/discovery/nodes')).body as {
      id: string;
      address: string;
      port: number;
      configUrl: string;
      lastCheckin: string | null;
      online: boolean;
    }[];

  test('an announce is recorded with its source address and answered once per 5 s', async () => {
    const peer = await udpPeer();
    try {
      await peer.send(announce('ENR-A', { name: 'Gate A', central: '' }), suite.udpPort);
      const reply = await waitFor(
        () => peer.received,
        (r) => r.length === 1,
      );
      expect(JSON.parse(reply[0]!.payload.toString())).toEqual({
        svc: 'discovery',
        v: 1,
        type: 'central',
        url: 'http://192.0.2.10:8080',
        name: 'svc',
      });
      const list = await waitFor(nodes, (l) => l.some((n) => n.id === 'ENR-A'));
      expect(list.find((n) => n.id === 'ENR-A')).toMatchObject({
        address: '127.0.0.1',
        port: 8182,
        configUrl: 'http://127.0.0.1:8182/api/config',
        lastCheckin: null,
        online: true,
      });
      const suppressed = suite.server.ctx.discovery.worker!.counts.repliesSuppressed;
      await peer.send(announce('ENR-A'), suite.udpPort);
      await waitFor(
        () => suite.server.ctx.discovery.worker!.counts.repliesSuppressed,
        (n) => n === suppressed + 1,
      );
      clock.advance(5_000);
      await peer.send(announce('ENR-A'), suite.udpPort);
      await waitFor(
        () => peer.received,
        (r) => r.length === 2,
      );
    } finally {
      await peer.close();
    }
  });

  test('a probe is answered with the central address, once per 5 s, and lists nobody', async () => {
    const peer = await udpPeer();
    try {
      const probe = JSON.stringify({ svc: 'discovery', v: 1, type: 'probe' });
      await peer.send(probe, suite.udpPort);
      const reply = await waitFor(
        () => peer.received,
        (r) => r.length === 1,
      );
      expect(JSON.parse(reply[0]!.payload.toString())).toMatchObject({
        type: 'central',
        url: 'http://192.0.2.10:8080',
      });
      const suppressed = suite.server.ctx.discovery.worker!.counts.repliesSuppressed;
      await peer.send(probe, suite.udpPort);
      await waitFor(
        () => suite.server.ctx.discovery.worker!.counts.repliesSuppressed,
        (n) => n === suppressed + 1,
      );
      expect(peer.received).toHaveLength(1);
      expect((await nodes()).some((n) => n.address === '127.0.0.1' && n.port === peer.port)).toBe(
        false,
      );
    } finally {
      await peer.close();
    }
  });

  test('offline rule: older than DISCOVERY_TIMEOUT leaves the list; the next announce brings it back', async () => {
    const peer = await udpPeer();
    try {
      await peer.send(announce('DSP-OFF', { kind: 'display', port: 8181 }), suite.udpPort);
      await waitFor(nodes, (l) => l.some((n) => n.id === 'DSP-OFF'));
      clock.advance(44_000);
      expect((await nodes()).some((n) => n.id === 'DSP-OFF')).toBe(true);
      clock.advance(2_000);
      expect((await nodes()).some((n) => n.id === 'DSP-OFF')).toBe(false);
      await peer.send(announce('DSP-OFF', { kind: 'display', port: 8181 }), suite.udpPort);
      await waitFor(nodes, (l) => l.some((n) => n.id === 'DSP-OFF'));
    } finally {
      await peer.close();
    }
  });

  test('100,000 random and mutated datagrams: the listener stays up, counts match, every valid announce is recorded', async () => {
    const worker = suite.server.ctx.discovery.worker!;
    const before = structuredClone(worker.counts);
    const expected: Partial<Record<DropReason, number>> = {};
    const validIds = new Set<string>();
    const peer = await udpPeer();
    const TOTAL = 100_000;
    try {
      for (let sent = 0; sent < TOTAL;) {
        const batch = Math.min(500, TOTAL - sent);
        for (let j = 0; j < batch; j++, sent++) {
          const payload = sent % 50 === 0 ? Buffer.from(announce(`FZ-${sent}`)) : junk(sent);
          const parsed = parseDatagram(payload);
          if (parsed.ok) {
            if (parsed.datagram.type === 'announce') validIds.add(parsed.datagram.id);
          } else {
            expected[parsed.reason] = (expected[parsed.reason] ?? 0) + 1;
          }
          await peer.send(payload, suite.udpPort);
        }
        // Flow control: a burst larger than the socket buffer would be dropped by the kernel.
        await waitFor(
          () => worker.counts.received - before.received,
          (n) => n === sent,
          20_000,
        );
      }
    } finally {
      await peer.close();
    }
    expect(worker.counts.received - before.received).toBe(TOTAL);
    for (const [reason, n] of Object.entries(expected)) {
      expect([
        reason,
        worker.counts.dropped[reason as DropReason] - before.dropped[reason as DropReason],
      ]).toEqual([reason, n]);
    }
    expect(worker.counts.announces - before.announces).toBe(
      TOTAL - Object.values(expected).reduce((a, b) => a + b, 0),
    );
    expect(validIds.size).toBeGreaterThan(2_000);
    await suite.server.ctx.discovery.worker!.flushNow();
    const listed = new Set((await nodes()).map((n) => n.id));
    for (const id of validIds) expect(listed.has(id)).toBe(true);
    // Still up: a fresh announce is heard and answered.
    const heartbeat = (await new TestClient(suite.server.url).get('/api/heartbeat')).body as {
      discovery: { listening: boolean };
    };
    expect(heartbeat.discovery.listening).toBe(true);
  }, 180_000);

  test('terminal ids are case-sensitive on every database', async () => {
    const peer = await udpPeer();
    try {
      await peer.send(announce('CASE-a'), suite.udpPort);
      await peer.send(announce('CASE-A'), suite.udpPort);
      await waitFor(
        nodes,
        (l) => l.some((n) => n.id === 'CASE-a') && l.some((n) => n.id === 'CASE-A'),
      );
      await suite.server.ctx.discovery.worker!.flushNow();
      const rows = await suite.server.ctx.models.DiscoveredNode.findAll({
        where: { id: ['CASE-a', 'CASE-A'] },
      });
      expect(rows.map((r) => r.id).sort()).toEqual(['CASE-A', 'CASE-a']);
    } finally {
      await peer.close();
    }
  });

  test('the node list needs a session or a trusted network', async () => {
    const env = { TRUSTED_NETWORKS: '192.0.2.0/24' };
    await withServer(suite.scratch, { env }, async (strict) => {
      const anonymous = await new TestClient(strict.url).get('/api/discovery/nodes');
      expect(anonymous.status).toBe(401);
      const c = new TestClient(strict.url);
      await c.login('admin', TEST_ADMIN_PASSWORD);
      const pending = await c.get('/api/discovery/nodes');
      expect(pending.status).toBe(403); // password change first
      await c.post('/api/auth/password', {
        currentPassword: TEST_ADMIN_PASSWORD,
        newPassword: 'copper kettle window ninety',
      });
      const ok = await c.get('/api/discovery/nodes');
      expect(ok.status).toBe(200);
      expect(Array.isArray(ok.body)).toBe(true);
    });
  });
});
