#!/usr/bin/env node
/**
 * Screenshots of the real site for the README: starts svc_server (which serves web/dist) on a
 * free loopback port with a fresh data directory and a generated initial password, signs in
 * through the login page (and the forced password change), adds a little sample data through
 * the API the site uses, and writes 1280×800 PNGs of the main pages to docs/screenshots/.
 * With `--lang zh-CN`: a Chinese browser, Chinese sample data, PNGs in docs/screenshots/zh-CN/.
 *
 *   npm run build -w @svc/shared -w @svc/server -w @svc/web
 *   node web/scripts/screenshots.mjs [--lang zh-CN]
 *
 * Chromium: SVC_CHROMIUM_PATH or /usr/bin/chromium. Nothing is kept but the PNGs.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const serverEntry = path.join(root, 'server/dist/platform/main.js');
const langAt = process.argv.indexOf('--lang');
const lang = langAt === -1 ? 'en' : process.argv[langAt + 1];
if (lang !== 'en' && lang !== 'zh-CN') {
  console.error(`--lang: en or zh-CN, not ${lang}`);
  process.exit(2);
}
const outDir = path.join(root, 'docs/screenshots', lang === 'en' ? '' : lang);
/** The site's own words in the language shown (its catalog). */
const catalog = JSON.parse(readFileSync(path.join(root, `web/src/locales/${lang}.json`), 'utf8'));
const w = (key) => key.split('.').reduce((o, part) => o[part], catalog);
for (const [file, build] of [
  [serverEntry, '@svc/server'],
  [path.join(root, 'web/dist/index.html'), '@svc/web'],
]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: npm run build -w @svc/shared -w ${build}`);
    process.exit(1);
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const password = () => `${randomBytes(18).toString('base64url')}-Aa1`;

async function waitForServer(url, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`svc_server exited with ${child.exitCode}`);
    try {
      const answer = await fetch(`${url}/api/heartbeat`, { signal: AbortSignal.timeout(2_000) });
      if (answer.ok && (await answer.json()).state === 1) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('svc_server did not become ready within 60 s');
}

/** The sample data, in the language of the screenshots. */
const SAMPLE = {
  en: {
    spaces: ['Head office', 'Lobby', 'Lab', 'Warehouse'],
    devices: ['Lobby gate', 'Lab door'],
    people: ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov'],
  },
  'zh-CN': {
    spaces: ['总部', '大堂', '实验室', '仓库'],
    devices: ['大堂闸机', '实验室门禁'],
    people: ['王小明', '李娜', '张伟', '欧阳修', '陈静', '刘洋'],
  },
}[lang];

/** Sample data through the same API the site calls (with its CSRF token). */
async function seed(page) {
  await page.evaluate(async (sample) => {
    const token = (await (await fetch('/api/auth/csrf')).json()).token;
    const post = async (url, body) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': token },
        body: JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    const [hqName, lobbyName, labName, warehouse] = sample.spaces;
    const hq = await post('/api/spaces', { name: hqName });
    const lobby = await post('/api/spaces', { name: lobbyName, parentId: hq.id });
    const lab = await post('/api/spaces', { name: labName, parentId: hq.id });
    await post('/api/spaces', { name: warehouse });
    await post('/api/devices', {
      sn: 'GATE-0001',
      name: sample.devices[0],
      baseUrl: 'http://127.0.0.1:9',
      spaceId: lobby.id,
    });
    await post('/api/devices', {
      sn: 'GATE-0002',
      name: sample.devices[1],
      baseUrl: 'http://127.0.0.1:9',
      spaceId: lab.id,
    });
    for (const [i, name] of sample.people.entries()) {
      await post('/api/people', {
        name,
        idNumber: `EMP-${1001 + i}`,
        spaceIds: [i % 2 === 0 ? lobby.id : lab.id],
      });
    }
  }, SAMPLE);
}

const pages = [
  ['dashboard', '/', w('nav.dashboard')],
  ['people', '/people', w('nav.people')],
  ['spaces', '/spaces', w('nav.spaces')],
  ['devices', '/devices', w('nav.devices')],
  ['system', '/system', w('nav.system')],
];

const runDir = mkdtempSync(path.join(tmpdir(), 'svc-screenshots-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const initial = password();
const server = spawn(process.execPath, [serverEntry], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATA_DIR: path.join(runDir, 'data'),
    ADMIN_INITIAL_PASSWORD: initial,
    SVC_DISCOVERY_WORKER: '0',
    SVC_PUSH_WORKER: '0',
    FACE_CHECK: 'off',
    LOG_LEVEL: 'warn',
  },
});
let browser;
try {
  await waitForServer(url, server);
  browser = await chromium.launch({
    executablePath: process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({
    baseURL: url,
    viewport: { width: 1280, height: 800 },
    locale: lang === 'en' ? 'en-US' : 'zh-CN',
  });
  await page.goto('/');
  await page.getByLabel(w('login.username'), { exact: true }).fill('admin');
  await page.getByLabel(w('login.password'), { exact: true }).fill(initial);
  await page.getByRole('button', { name: w('login.submit'), exact: true }).click();
  const next = password();
  await page.getByLabel(w('password.current'), { exact: true }).fill(initial);
  await page.getByLabel(w('password.new'), { exact: true }).fill(next);
  await page.getByLabel(w('password.confirm'), { exact: true }).fill(next);
  await page.getByRole('button', { name: w('password.submit'), exact: true }).click();
  await page.getByRole('heading', { name: w('nav.dashboard'), level: 1 }).waitFor();
  await seed(page);

  mkdirSync(outDir, { recursive: true });
  for (const [name, address, heading] of pages) {
    await page.goto(address);
    await page.getByRole('heading', { name: heading, level: 1, exact: true }).waitFor();
    // Every query has answered once nothing is loading.
    await page.waitForLoadState('networkidle');
    const file = path.join(outDir, `${name}.png`);
    await page.screenshot({ path: file });
    console.log(path.relative(root, file));
  }
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((resolve) =>
    server.exitCode !== null ? resolve() : server.once('exit', resolve),
  );
  rmSync(runDir, { recursive: true, force: true });
}
