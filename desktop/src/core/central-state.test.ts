import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CentralClient } from './clients/central-client.js';
import { measureCentral, type CentralState } from './central-state.js';
import { setLanguage } from './i18n.js';
import { centralHealth } from './texts.js';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers that come later, cleared once a case is measured. */
const timers = new Set<ReturnType<typeof setTimeout>>();
const later = (ms: number, then: () => void) => {
  const timer = setTimeout(() => {
    timers.delete(timer);
    then();
  }, ms);
  timers.add(timer);
};

const heartbeat = (state: 0 | 1) => ({
  state,
  service: 'svc',
  time: new Date().toISOString(),
  responseTimeMs: 1,
  version: '0.1.0',
  uptimeSeconds: 1,
  database: { state: state === 1 ? 'up' : 'down', dialect: 'sqlite' },
  workers: {},
  warnings: [],
});

/** What answers at the central address, case by case (what a technician meets on a site). */
const CASES: Record<string, Answer | null> = {
  // The central service stopped: nothing listens on the port.
  stopped: null,
  // Another web server on the port (a router's page, another program).
  'another web server': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>router login</h1>');
  },
  'a page that is not JSON': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>welcome</title>');
  },
  'JSON of another shape': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  },
  // The central service itself answers its heartbeat with an error (PROTOCOL §0 body).
  'the service failing (500)': (_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'internal_error', message: 'Internal error.' } }));
  },
  // nginx in front, the central service behind it stopped.
  'the web server in front (502)': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body><center><h1>502 Bad Gateway</h1></center></body></html>');
  },
  // Accepts the connection, answers after the heartbeat's budget.
  'too slow (4 s)': (_req, res) => {
    later(4_000, () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(heartbeat(1)));
    });
  },
  // Answers, slowly.
  'slow (1.3 s)': (_req, res) => {
    later(1_300, () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(heartbeat(1)));
    });
  },
  // A real svc central service, this laptop outside its TRUSTED_NETWORKS and not signed in:
  // its heartbeat's summary only (PROTOCOL §5).
  'outside its trusted networks': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const { state, service, time, responseTimeMs } = heartbeat(1);
    res.end(JSON.stringify({ state, service, time, responseTimeMs }));
  },
  'a problem (state 0)': (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(heartbeat(0)));
  },
};

/** The header's words, and the state they come from, for each case (the server then closed). */
async function measureAll(): Promise<Record<string, { state: CentralState; text: string }>> {
  const out: Record<string, { state: CentralState; text: string }> = {};
  const servers: Server[] = [];
  try {
    const urls: Record<string, string> = {};
    for (const [name, answer] of Object.entries(CASES)) {
      const server = createServer((req, res) => (answer ?? (() => undefined))(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (answer === null) await new Promise((resolve) => server.close(resolve));
      else servers.push(server);
    }
    await Promise.all(
      Object.entries(urls).map(async ([name, url]) => {
        const state = await measureCentral(new CentralClient(url), {
          now: Date.now(),
          badAddress: null,
          refusal: null,
          codeRequired: false,
        });
        out[name] = { state, text: centralHealth(state).text };
      }),
    );
  } finally {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  }
  return out;
}

const host = (s: CentralState) => new URL(s.url!).host;

describe('the live header states one truth about the central service', () => {
  afterAll(() => setLanguage('en'));

  it('in English: not answering only when nothing answered; the round trip whenever something did', async () => {
    await setLanguage('en');
    const seen = await measureAll();
    const said = (name: string) => seen[name]!.text;
    const at = (name: string) => host(seen[name]!.state);
    expect(said('stopped')).toBe(
      `Central service not answering: nothing answers at ${at('stopped')} (connection refused)`,
    );
    expect(said('another web server')).toMatch(
      new RegExp(
        `^No central service at this address: ${at('another web server')} answers HTTP 404, not as an svc central service · round trip \\d+ ms$`,
      ),
    );
    expect(said('a page that is not JSON')).toMatch(
      /^No central service at this address: .* answers something that is not JSON \(HTTP 200\), not as an svc central service · round trip \d+ ms$/,
    );
    expect(said('JSON of another shape')).toMatch(
      /^No central service at this address: .* answers JSON of a shape the console does not know \(HTTP 200\)/,
    );
    expect(said('the service failing (500)')).toMatch(
      /^Central service answers with an error: Something went wrong on the server\..* \(HTTP 500\) · round trip \d+ ms$/,
    );
    expect(said('the web server in front (502)')).toMatch(
      new RegExp(
        `^Central service not answering behind its web server: the web server at ${at('the web server in front (502)')} answers HTTP 502 in its place · round trip \\d+ ms$`,
      ),
    );
    expect(said('too slow (4 s)')).toBe(
      `Central service not answering in time: no answer from ${at('too slow (4 s)')} within 3 s`,
    );
    expect(said('slow (1.3 s)')).toMatch(
      /^Central service answering slowly · round trip \d{4} ms$/,
    );
    expect(centralHealth(seen['slow (1.3 s)']!.state).health).toBe('warn');
    expect(said('a problem (state 0)')).toMatch(/^Central service answers, but reports a problem/);
    // An svc central service that keeps its state for its trusted networks: said so, and what
    // it needs; never "not an svc central service".
    const outside = seen['outside its trusted networks']!;
    expect(outside.text).toMatch(
      /^svc central service answering, state withheld: sign in \(this laptop is outside its trusted networks\) · round trip \d+ ms$/,
    );
    expect(centralHealth(outside.state).health).toBe('warn');
    expect(outside.state.error).toMatch(/is an svc central service/);
    expect(outside.state.advice).toMatch(/^This is an svc central service\..*sign in below/);
    expect(`${outside.text} ${outside.state.error}`).not.toMatch(/not as an svc central service/);

    for (const [name, { state, text }] of Object.entries(seen)) {
      const answered = !['stopped', 'too slow (4 s)'].includes(name);
      // Something answered: never "nothing answers", and the round trip is said.
      expect([name, /round trip \d+ ms/.test(text)]).toEqual([name, answered]);
      if (answered) expect(text).not.toMatch(/nothing answers|no answer/);
      // The panel's "what to check" comes from the same code: it never contradicts the header.
      if (name === 'another web server') expect(state.advice).toMatch(/^Something else answers/);
      if (name === 'the web server in front (502)') {
        expect(state.advice).toMatch(/the central service behind it does not answer/);
      }
      // No server English, no API path, no raw code.
      expect(`${text} ${state.error} ${state.advice}`).not.toMatch(
        /Internal error\.|\/api\/|ECONN|fetch failed/,
      );
    }
  }, 30_000);

  it('in Chinese (zh-CN), the same states in the catalog’s words', async () => {
    await setLanguage('zh-CN');
    const seen = await measureAll();
    const said = (name: string) => seen[name]!.text;
    expect(said('stopped')).toMatch(/^中心服务无应答：.* 无应答（连接被拒绝）$/);
    expect(said('another web server')).toMatch(
      /^此地址上没有中心服务：.* 应答了 HTTP 404，但不是 svc 中心服务的应答 · 往返 \d+ 毫秒$/,
    );
    expect(said('the service failing (500)')).toMatch(
      /^中心服务应答了错误：服务器出错.*（HTTP 500） · 往返 \d+ 毫秒$/,
    );
    expect(said('the web server in front (502)')).toMatch(
      /^网页服务器后面的中心服务无应答：.* 的网页服务器代为应答了 HTTP 502 · 往返 \d+ 毫秒$/,
    );
    expect(said('too slow (4 s)')).toMatch(/^中心服务未能及时应答：.* 在 3 秒内无应答$/);
    expect(said('slow (1.3 s)')).toMatch(/^中心服务应答缓慢 · 往返 \d{4} 毫秒$/);
    expect(said('outside its trusted networks')).toMatch(
      /^svc 中心服务有应答，但未显示状态：请登录（本机不在其受信任网络内） · 往返 \d+ 毫秒$/,
    );
    for (const { state, text } of Object.values(seen)) {
      // Nothing in English but the address, HTTP, JSON and the product's name.
      const words = `${text} ${state.advice ?? ''}`
        .replace(
          /127\.0\.0\.1:\d+|HTTP|JSON|svc|TRUSTED_NETWORKS|deploy\/status\.sh|http:\/\/\S+/g,
          '',
        )
        .match(/[A-Za-z]{3,}/g);
      expect(words).toBeNull();
    }
  }, 30_000);
});
