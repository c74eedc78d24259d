// The recognition benchmark's load generator, run as a child process of recognition.mjs (so the
// devices' sending and the display's receiving do not share one event loop). It sends the
// devices' POST /api/recognition/events (PROTOCOL §3) — or, for the raw baseline, the same panel
// bodies straight to the display (§4) — over kept-alive HTTP/1.1 connections with bodies built
// from a template: the generator's CPU per event is overhead of the benchmark, not of the
// system measured, and on a 2-core machine it competes with the server.
//
// Messages from the parent: {type:'init', ...} once, then {type:'run', id, target:'server'|'raw',
// mode:'closed'|'open', seconds, concurrency|rate}; each run answers {type:'done', id, sent,
// answered (ms from send to answer, per accepted event), failures, startedAt, rate, skipped,
// cpuUs}. Times are CLOCK_MONOTONIC milliseconds
// (process.hrtime), the same clock in every process of the machine.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * A minimal keep-alive HTTP/1.1 client: one request at a time per connection, up to `max`
 * connections, the rest queued. Reads the status and skips a Content-Length body (the server
 * and the display simulator both send one); anything else closes the connection.
 */
export function connectionPool(url, max) {
  const { hostname, port } = new URL(url);
  const idle = [];
  const queue = [];
  let open = 0;

  const connect = () => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    const conn = { socket, buf: null, waiter: null };
    const fail = (err) => {
      const w = conn.waiter;
      conn.waiter = null;
      conn.dead = true;
      const at = idle.indexOf(conn);
      if (at >= 0) idle.splice(at, 1);
      if (!conn.counted) return;
      conn.counted = false;
      open--;
      w?.reject(err);
      pump();
    };
    conn.counted = true;
    open++;
    socket.on('data', (chunk) => {
      conn.buf = conn.buf ? Buffer.concat([conn.buf, chunk]) : chunk;
      const end = conn.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = conn.buf.toString('latin1', 0, end);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) return socket.destroy(new Error('answer without content-length'));
      const total = end + 4 + Number(length[1]);
      if (conn.buf.length < total) return;
      const status = Number(head.slice(9, 12));
      conn.buf = conn.buf.length > total ? conn.buf.subarray(total) : null;
      const w = conn.waiter;
      conn.waiter = null;
      if (/\r\nconnection: *close/i.test(head)) {
        conn.counted = false;
        open--;
        socket.destroy();
      } else {
        idle.push(conn);
      }
      w.resolve(status);
      pump();
    });
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    return conn;
  };

  const pump = () => {
    while (queue.length > 0) {
      let conn = idle.pop();
      if (!conn) {
        if (open >= max) return;
        conn = connect();
      }
      const job = queue.shift();
      conn.waiter = job;
      conn.socket.write(job.request);
    }
  };

  return {
    /** Sends one complete request (head and body); resolves with the answer's status. */
    send(request) {
      return new Promise((resolve, reject) => {
        queue.push({ request, resolve, reject });
        pump();
      });
    },
    close() {
      for (const c of idle.splice(0)) c.socket.destroy();
    },
  };
}

function post(host, path, headers, body) {
  return (
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${headers}Content-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function child() {
  let setup;
  let server;
  let display;
  let n = 0;

  const senders = {
    /** A device's event (PROTOCOL §3): each device sends with its own key. */
    server() {
      const i = n++;
      const device = setup.devices[i % setup.devices.length];
      const eventId = randomUUID();
      const body = `{"eventId":"${eventId}","sn":"${device.sn}","personId":"${
        setup.people[i % setup.people.length]
      }","score":0.97,"time":"${new Date().toISOString()}"}`;
      return [
        eventId,
        server,
        post(setup.serverHost, '/api/recognition/events', device.auth, body),
        202,
      ];
    },
    /** The panel body the server would build for the same event (PROTOCOL §4). */
    raw() {
      const i = n++;
      const eventId = randomUUID();
      const body = `{"eventId":"${eventId}","time":"${new Date().toISOString()}","score":0.97,"person":{"id":"${
        setup.people[i % setup.people.length]
      }","name":"Bench Person"},"device":{"sn":"BENCH-0","name":"Bench gate 0"},"space":{"id":"${
        setup.spaceId
      }","name":"Bench hall"}}`;
      return [eventId, display, post(setup.panelHost, setup.panelPath, '', body), 200];
    },
  };

  process.on('message', (msg) => {
    if (msg.type === 'init') {
      setup = {
        ...msg,
        serverHost: new URL(msg.base).host,
        panelHost: new URL(msg.panelUrl).host,
        panelPath: new URL(msg.panelUrl).pathname,
        devices: msg.devices.map((d) => ({ sn: d.sn, auth: `Authorization: Bearer ${d.key}\r\n` })),
      };
      server = connectionPool(msg.base, 128);
      display = connectionPool(msg.panelUrl, 128);
      process.send({ type: 'ready' });
      return;
    }
    if (msg.type === 'stop') {
      server.close();
      display.close();
      process.disconnect();
      return;
    }
    if (msg.type === 'run') void run(msg);
  });

  async function run(msg) {
    const make = senders[msg.target];
    const sent = [];
    const answered = [];
    const failures = {};
    const send = async () => {
      const [eventId, pool, request, expected] = make();
      const at = nowMs();
      try {
        const status = await pool.send(request);
        if (status !== expected) throw new Error(`HTTP ${status}`);
        sent.push(eventId, at);
        answered.push(nowMs() - at);
      } catch (err) {
        const why = `${msg.target}: ${err.message}`;
        failures[why] = (failures[why] ?? 0) + 1;
      }
    };
    const cpu0 = process.cpuUsage();
    const startedAt = nowMs();
    const end = startedAt + msg.seconds * 1000;
    let skipped = 0;
    if (msg.mode === 'closed') {
      await Promise.all(
        Array.from({ length: msg.concurrency }, async () => {
          while (nowMs() < end) await send();
        }),
      );
    } else {
      // Open loop: sends at the rate whatever the answers take, so queueing shows in the
      // latency instead of slowing the sender; at most 512 in flight, the rest skipped.
      const pending = new Set();
      let issued = 0;
      while (nowMs() < end) {
        const due = Math.floor(((nowMs() - startedAt) / 1000) * msg.rate);
        for (; issued < due; issued++) {
          if (pending.size >= 512) {
            skipped++;
            continue;
          }
          const p = send().then(() => pending.delete(p));
          pending.add(p);
        }
        await sleep(2);
      }
      await Promise.all(pending);
    }
    const elapsed = msg.mode === 'closed' ? nowMs() - startedAt : msg.seconds * 1000;
    const cpu = process.cpuUsage(cpu0);
    process.send({
      type: 'done',
      id: msg.id,
      sent,
      answered,
      failures,
      startedAt,
      skipped,
      rate: sent.length / 2 / (elapsed / 1000),
      cpuUs: cpu.user + cpu.system,
    });
  }
}

if (process.argv[2] === '--child') child();
