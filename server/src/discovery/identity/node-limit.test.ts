import { discoveryNodeList, heartbeatResponse } from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { DIALECTS } from '../../test/dialects.js';
import { discoverySuite } from '../../test/discovery-suite.js';
import { TestClient } from '../../test/http-client.js';
import { udpPeer } from '../../test/udp.js';
import { waitFor } from '../../test/wait.js';

const MAX = 50;
const announce = (id: string) =>
  JSON.stringify({ svc: 'discovery', v: 1, type: 'announce', id, kind: 'display', port: 8181 });

/**
 * Issue 20, finding 3: invented ids cannot grow the node list past DISCOVERY_MAX_NODES (the
 * million-id figure is bench/discovery-flood.mjs).
 */
describe.each(DIALECTS)('node limit on %s', (dialect) => {
  const clock = new ManualClock(new Date());
  const suite = discoverySuite(dialect, { clock, env: { DISCOVERY_MAX_NODES: String(MAX) } });

  const nodes = async () =>
    discoveryNodeList.parse(
      (await new TestClient(suite.server.url).get('/api/discovery/nodes')).body,
    );
  const counts = () => suite.server.ctx.discovery.worker!.counts;

  test('new ids beyond the limit are dropped and counted; known ids still refresh; silent ones make room', async () => {
    const peer = await udpPeer();
    try {
      const received = counts().received;
      for (let i = 0; i < 4 * MAX; i++) {
        await peer.send(announce(`FLOOD-${i}`), suite.udpPort);
        if (i % 50 === 49)
          await waitFor(
            () => counts().received - received,
            (n) => n === i + 1,
          );
      }
      await waitFor(
        () => counts().received - received,
        (n) => n === 4 * MAX,
      );
      await suite.server.ctx.discovery.worker!.flushNow();
      const listed = await nodes();
      expect(listed).toHaveLength(MAX);
      expect(counts().dropped.node_limit).toBe(3 * MAX);
      expect(await suite.server.ctx.models.DiscoveredNode.count()).toBe(MAX);
      const heartbeat = heartbeatResponse.parse(
        (await new TestClient(suite.server.url).get('/api/heartbeat')).body,
      );
      expect(heartbeat.discovery).toMatchObject({ counts: { dropped: { node_limit: 3 * MAX } } });

      // A known id still refreshes at the limit.
      const first = listed.find((n) => n.id === 'FLOOD-0')!;
      clock.advance(10_000);
      await peer.send(announce('FLOOD-0'), suite.udpPort);
      await waitFor(
        async () => (await nodes()).find((n) => n.id === 'FLOOD-0')?.lastSeen,
        (seen) => seen !== undefined && seen > first.lastSeen,
      );
      expect(counts().dropped.node_limit).toBe(3 * MAX);

      // Once the flood stops and its ids fall silent, a real terminal gets a place again.
      clock.advance(36_000);
      await peer.send(announce('DSP-REAL'), suite.udpPort);
      await waitFor(
        () => counts().dropped.node_limit,
        (n) => n === 3 * MAX + 1,
      );
      // The drop asks the worker to forget the ids silent for DISCOVERY_TIMEOUT.
      await waitFor(
        () => suite.server.ctx.discovery.store.nodeCount,
        (n) => n === 1,
      );
      await peer.send(announce('DSP-REAL'), suite.udpPort);
      const after = await waitFor(nodes, (l) => l.some((n) => n.id === 'DSP-REAL'));
      expect(after.map((n) => n.id)).toEqual(['DSP-REAL', 'FLOOD-0']);
      expect(await suite.server.ctx.models.DiscoveredNode.count()).toBe(2);
    } finally {
      await peer.close();
    }
  });
});
