import dgram from 'node:dgram';
import { encodeDatagram } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { TestClient } from '../test/http-client.js';
import { udpPeer } from '../test/udp.js';
import { PROBE_ANSWERS_PER_S } from './reply-limits.js';
import { waitFor } from '../test/wait.js';

/**
 * Issue 32, item 5: the discovery port must not be a reflector. Real UDP sockets against a real
 * server: many source ports of one address, many source addresses (127.0.0.0/8 is all
 * loopback), and a flood of invented announce ids.
 */
const PROBE = Buffer.from(JSON.stringify({ svc: 'discovery', v: 1, type: 'probe' }));
const announce = (id: string) =>
  JSON.stringify({ svc: 'discovery', v: 1, type: 'announce', id, kind: 'display', port: 8181 });

/** A socket bound to `address`, counting what it hears. */
async function socketAt(address: string) {
  const socket = dgram.createSocket('udp4');
  const heard: Buffer[] = [];
  socket.on('message', (m) => heard.push(m));
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  return {
    heard,
    send: (payload: Buffer, port: number) =>
      new Promise<void>((resolve, reject) =>
        socket.send(payload, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
      ),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/**
 * The announce rate this server runs with: the test's own process cannot send faster than
 * the production rate (ANNOUNCE_REPLIES_PER_S; reply-limits.test.ts holds the bucket), so
 * the flood is measured against a rate it can outrun.
 */
const ANNOUNCE_RATE = 200;

describe.each(DIALECTS)('discovery answers do not amplify, on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  // Ports of this suite's own range (one per dialect so the two never share a socket).
  const port = dialect === 'sqlite' ? 41410 : 41411;
  const counts = () => server.ctx.discovery.worker!.counts;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    server = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: {
        SVC_DISCOVERY_WORKER: '1',
        DISCOVERY_PORT: String(port),
        DISCOVERY_HOST: '192.0.2.10',
        WEB_PORT: '8080',
        DISCOVERY_MAX_NODES: '50000',
      },
      infra: { discoveryFlushEveryMs: 50, discoveryAnnounceRepliesPerS: ANNOUNCE_RATE },
    });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
  });

  test('500 source ports of one address get one answer, no larger than the protocol says', async () => {
    const sockets = await Promise.all(Array.from({ length: 500 }, () => socketAt('127.0.0.9')));
    const before = counts().replies;
    try {
      for (const s of sockets) await s.send(PROBE, port);
      await waitFor(
        () => counts().probes,
        (n) => n >= 500,
      );
      const answers = sockets.flatMap((s) => s.heard);
      await waitFor(
        () => sockets.flatMap((s) => s.heard).length,
        (n) => n >= 1,
      );
      expect(counts().replies - before).toBe(1);
      expect(answers.length).toBeLessThanOrEqual(1);
      const only = sockets.flatMap((s) => s.heard)[0]!;
      // Exactly the protocol's central datagram: nothing of the probe echoed, nothing padded.
      expect(
        only.equals(
          encodeDatagram({
            svc: 'discovery',
            v: 1,
            type: 'central',
            url: 'http://192.0.2.10:8080',
            name: 'svc',
          }),
        ),
      ).toBe(true);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
    }
  });

  test('probes from 300 source addresses are answered within the service-wide rate', async () => {
    const sockets = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        socketAt(`127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`),
      ),
    );
    const before = counts().replies;
    const probesBefore = counts().probes;
    const t0 = performance.now();
    try {
      for (const s of sockets) await s.send(PROBE, port);
      await waitFor(
        () => counts().probes - probesBefore,
        (n) => n >= 300,
      );
      const seconds = (performance.now() - t0) / 1000;
      const answered = counts().replies - before;
      expect(answered).toBeGreaterThanOrEqual(1);
      expect(answered).toBeLessThanOrEqual(Math.ceil(PROBE_ANSWERS_PER_S * (1 + seconds)));
      expect(counts().repliesRateLimited).toBeGreaterThan(0);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
    }
  });

  test('10,000 invented announce ids are replied to within the service-wide rate; a terminal is answered after', async () => {
    const peer = await udpPeer();
    const before = counts().replies;
    const announcesBefore = counts().announces;
    const TOTAL = 10_000;
    const t0 = performance.now();
    try {
      for (let sent = 0; sent < TOTAL;) {
        const batch = Array.from({ length: 2_000 }, (_, j) => announce(`FLOOD-${sent + j}`));
        await Promise.all(batch.map((d) => peer.send(d, port)));
        sent += batch.length;
        // Flow control: a burst larger than the socket buffer would be dropped by the kernel.
        await waitFor(
          () => counts().announces - announcesBefore,
          (n) => n >= sent,
          20_000,
        );
      }
      const seconds = (performance.now() - t0) / 1000;
      console.log(`flood of ${TOTAL} announces in ${seconds.toFixed(1)} s`);
      const replied = counts().replies - before;
      expect(replied).toBeLessThanOrEqual(Math.ceil(ANNOUNCE_RATE * (1 + seconds)));
      // The flood outran the limit (else this run proves nothing), and the limit held.
      expect(ANNOUNCE_RATE * (1 + seconds)).toBeLessThan(TOTAL);
      expect(replied).toBeLessThan(TOTAL);
      // The bucket refills: a real terminal a moment later is answered.
      await new Promise((r) => setTimeout(r, 1_000));
      const terminal = await udpPeer();
      try {
        await terminal.send(announce('DSP-REAL'), port);
        await waitFor(
          () => terminal.received.length,
          (n) => n === 1,
        );
      } finally {
        await terminal.close();
      }
      const heartbeat = (await new TestClient(server.url).get('/api/heartbeat')).body as {
        discovery: { listening: boolean; counts: { repliesRateLimited: number } };
      };
      expect(heartbeat.discovery.listening).toBe(true);
      expect(heartbeat.discovery.counts.repliesRateLimited).toBeGreaterThan(0);
    } finally {
      await peer.close();
    }
  }, 120_000);
});
