#!/usr/bin/env node
// Site benchmark (issue 22): the admin site in headless Chromium against a real svc_server
// holding 1,000,000 people (a database kept by `bench/people.mjs --keep yes`). Times, in the
// browser, how long the people list, a people search and the dashboard take to answer, with a
// small page (/settings: two short API reads) as the same-run baseline.
//
//   node bench/site.mjs --reuse <sqlite data dir | mysql database> [--db mysql] [--samples 40]
//   (needs `npm run build` and `cd web && npm run build`; Chromium at /usr/bin/chromium or
//   SVC_CHROMIUM.)
//
// "Answered" = the page shows its data: the list's rows with no loader, the search's rows all
// matching what was typed, every dashboard tile filled in. Load = a full page load (new
// document, bundle from the browser cache, session check, data); from the menu = a click in the
// navigation of an open site (fresh query cache); typed = the search box filled on an open list
// until the rows match (includes the list's 300 ms typing pause).
// The functions given to waitForFunction run in the page.
/* global document */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { flags, freePort, percentiles } from './lib.mjs';
import { adminSession, startServer } from './server-process.mjs';

const args = flags();
const DB = args.db ?? 'sqlite';
const REUSE = args.reuse;
const SAMPLES = Number(args.samples ?? 40);
const WARMUP = 5;
const GOAL_MS = 1000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'web/dist');
const { chromium } = createRequire(path.join(ROOT, 'web/package.json'))('@playwright/test');
const { createSequelize } = await import(path.join(ROOT, 'server/dist/platform/db/sequelize.js'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** web/dist with the SPA fallback, and /api/ passed to the server (what nginx does). */
async function serveSite(apiBase) {
  const api = new URL(apiBase);
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/api/')) {
      const upstream = http.request(
        {
          host: api.hostname,
          port: api.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
      return;
    }
    const wanted = path.join(DIST, path.normalize(decodeURIComponent(req.url.split('?')[0])));
    const file =
      wanted.startsWith(DIST) && existsSync(wanted) && statSync(wanted).isFile()
        ? wanted
        : path.join(DIST, 'index.html');
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    createReadStream(file).pipe(res);
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** Name prefixes (3–5 letters) of people spread over the table. */
async function namePrefixes(db) {
  const sequelize = createSequelize(db);
  const [rows] = await sequelize.query('SELECT name_key FROM people ORDER BY id LIMIT 60');
  await sequelize.close();
  return rows.map((r, i) => r.name_key.slice(0, 3 + (i % 3)));
}

async function main() {
  if (!REUSE) throw new Error('--reuse <data dir | database> (from bench/people.mjs --keep yes)');
  const server = await startServer({
    ROOT,
    DB,
    dataDir: REUSE,
    name: 'site',
    database: DB === 'mysql' ? REUSE : undefined,
  });
  const prefixes = await namePrefixes(server.db);
  const out = execFileSync(
    process.execPath,
    [path.join(ROOT, 'server/dist/platform/cli/admin.js'), 'reset-password', 'admin'],
    { env: server.env, encoding: 'utf8' },
  );
  const initial = readFileSync(/ is in (\S+) \(/.exec(out)[1], 'utf8').trim();
  const { password } = await adminSession(server.base, initial);
  const site = await serveSite(server.base);

  const browser = await chromium.launch({
    executablePath: process.env.SVC_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = await (await browser.newContext({ baseURL: site.url })).newPage();
  await page.goto('/');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('current-username').waitFor();

  const raf = { polling: 'raf', timeout: 30_000 };
  const listShown = () =>
    page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="person-row"]').length > 0 &&
        !document.querySelector('[aria-label="Loading people"]'),
      null,
      raf,
    );
  const matching = (prefix) =>
    page.waitForFunction(
      (p) => {
        const rows = [...document.querySelectorAll('[data-testid="person-row"] td:first-child')];
        return (
          rows.length > 0 &&
          !document.querySelector('[aria-label="Loading people"]') &&
          rows.every((td) => td.textContent.toLowerCase().startsWith(p))
        );
      },
      prefix,
      raf,
    );
  const time = async (label, step) => {
    const ms = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const prepared = await step(i);
      const t = performance.now();
      await prepared();
      if (i >= WARMUP) ms.push(performance.now() - t);
    }
    return { label, ...percentiles(ms) };
  };

  const dashboardShown = () =>
    page.waitForFunction(
      () => {
        const main = document.querySelector('main');
        return (
          main !== null &&
          main.querySelectorAll('section').length > 0 &&
          !main.textContent.includes('…')
        );
      },
      null,
      raf,
    );
  const menu = (name) =>
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });

  const loadBefore = os.loadavg()[0];
  const results = [
    await time('baseline: /settings, load', () => async () => {
      await page.goto('/settings');
      await page.waitForFunction(
        () => /^\d+$/.test(document.querySelector('main input')?.value ?? ''),
        null,
        raf,
      );
    }),
    await time('dashboard /, load', () => async () => {
      await page.goto('/');
      await dashboardShown();
    }),
    await time('dashboard, from the menu', async () => {
      await page.goto('/settings');
      await menu('Dashboard').waitFor();
      return async () => {
        await menu('Dashboard').click();
        await dashboardShown();
      };
    }),
    await time('people list /people?page=N, load', (i) => async () => {
      await page.goto(`/people${i % 20 === 0 ? '' : `?page=${1 + (i % 20)}`}`);
      await listShown();
    }),
    await time('people list, from the menu', async () => {
      await page.goto('/settings');
      await menu('People').waitFor();
      return async () => {
        await menu('People').click();
        await listShown();
      };
    }),
    await time('people search /people?q=…, load', (i) => async () => {
      const prefix = prefixes[i % prefixes.length];
      await page.goto(`/people?q=${encodeURIComponent(prefix)}`);
      await matching(prefix);
    }),
    await time('people search, typed on the list', async (i) => {
      const prefix = prefixes[(i + 7) % prefixes.length];
      await page.goto('/people');
      await listShown();
      return async () => {
        await page.getByRole('searchbox', { name: 'Search' }).fill(prefix);
        await matching(prefix);
      };
    }),
  ];

  await browser.close();
  site.close();
  await server.stop();
  const base = results[0].p95;
  const f = (n) => n.toFixed(0);
  console.log(
    `site bench (${DB}): reused ${REUSE}; ${SAMPLES} samples each after ${WARMUP} warm-up`,
  );
  for (const r of results) {
    const verdict = r === results[0] ? '' : r.p95 <= GOAL_MS ? '  ok' : '  OVER 1 s';
    console.log(
      `  ${r.label.padEnd(40)} p50 ${f(r.p50)} ms  p95 ${f(r.p95)} ms  max ${f(r.max)} ms  (p95 ${(r.p95 / base).toFixed(1)}x baseline)${verdict}`,
    );
  }
  console.log(
    `  load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(`  goal: p95 under ${GOAL_MS} ms for the list, the search and the dashboard`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
