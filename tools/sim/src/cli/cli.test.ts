import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { terminalConfig } from '@svc/shared';
import { request } from '../test/http-client.js';
import { announcesOf, openListener } from '../test/udp.js';
import { waitFor } from '../test/wait-for.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(packageDir, 'dist', 'cli.js');

function newestSource(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestSource(path));
    return entry.name.endsWith('.ts') ? Math.max(newest, statSync(path).mtimeMs) : newest;
  }, 0);
}

beforeAll(() => {
  const shared = join(packageDir, '..', '..', 'shared', 'dist', 'index.js');
  if (!existsSync(shared)) {
    throw new Error('@svc/shared is not built: run `npm run build -w @svc/shared` first');
  }
  // The CLI runs from dist: rebuild it when any source is newer (or it is missing).
  if (!existsSync(cli) || statSync(cli).mtimeMs < newestSource(join(packageDir, 'src'))) {
    const tsc = join(packageDir, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');
    execFileSync(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
  }
}, 120_000);

interface Run {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const runs: Run[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
});

function launch(args: string[]): Run {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: [],
    stderr: [],
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  const collect = (into: string[]) => (chunk: Buffer) =>
    into.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout.on('data', collect(run.stdout));
  child.stderr.on('data', collect(run.stderr));
  runs.push(run);
  return run;
}

function started(run: Run): Map<string, { kind: string; url: string }> {
  const nodes = new Map<string, { kind: string; url: string }>();
  for (const line of run.stdout) {
    const match = /^started (\S+) (\S+) (http:\/\/\S+)$/.exec(line);
    if (match?.[1] && match[2] && match[3]) nodes.set(match[2], { kind: match[1], url: match[3] });
  }
  return nodes;
}

describe('svc-sim CLI', () => {
  it('runs two terminals that answer on their ports, and stops on SIGTERM with exit 0', async () => {
    const discovery = await openListener();
    try {
      const run = launch([
        '--enrollment', 'ENR-CLI',
        '--display', 'DSP-CLI',
        '--bind', '127.0.0.1',
        '--ephemeral-ports',
        '--broadcast', '127.255.255.255',
        '--discovery-port', String(discovery.port),
        '--announce-interval', '0',
      ]); // prettier-ignore
      await waitFor(
        '"ready"',
        () => run.stdout.includes('ready') || run.child.exitCode !== null,
        15_000,
      );
      const nodes = started(run);
      expect([...nodes.keys()]).toEqual(['ENR-CLI', 'DSP-CLI']);
      for (const [id, node] of nodes) {
        const answer = await request(`${node.url}/api/config`);
        expect(answer.status).toBe(200);
        expect(terminalConfig.parse(answer.json)).toMatchObject({ id, kind: node.kind });
      }
      await waitFor('both boot announces', () => {
        return (
          announcesOf(discovery.heard, 'ENR-CLI').length +
            announcesOf(discovery.heard, 'DSP-CLI').length ===
          2
        );
      });

      run.child.kill('SIGTERM');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      await expect(request(`${nodes.get('ENR-CLI')?.url}/api/config`)).rejects.toThrow(
        /ECONNREFUSED/,
      );
    } finally {
      await discovery.close();
    }
  });

  it('runs a device with a control port and stops on SIGINT with exit 0', async () => {
    const run = launch([
      '--device', 'DEV-CLI:cli-key',
      '--bind', '127.0.0.1',
      '--ephemeral-ports',
      '--control-port', '0',
    ]); // prettier-ignore
    await waitFor(
      '"ready"',
      () => run.stdout.includes('ready') || run.child.exitCode !== null,
      15_000,
    );
    const device = started(run).get('DEV-CLI');
    expect(device?.kind).toBe('device');
    const controlLine = run.stdout.find((line) => line.startsWith('control '));
    const controlUrl = controlLine?.split(' ')[1] ?? '';
    const listed = await request(controlUrl);
    expect(listed.json).toEqual([{ kind: 'device', id: 'DEV-CLI', url: device?.url }]);
    const state = await request(`${device?.url}/_sim/state`);
    expect(state.json).toMatchObject({ sn: 'DEV-CLI', hasKey: true, persons: {} });

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });

  it('exits 2 on invalid flags and 1 when a node cannot start', async () => {
    const invalid = launch(['--enrollment', 'ENR-X', '--announce-interval', 'soon']);
    expect((await invalid.exited).code).toBe(2);
    expect(invalid.stderr.join('\n')).toMatch(/announce-interval/);

    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = busy.address() as AddressInfo;
      const blocked = launch([
        '--enrollment', 'ENR-Y',
        '--bind', '127.0.0.1',
        '--port', `ENR-Y=${port}`,
        '--no-probe-listener',
        '--broadcast', '127.255.255.255',
      ]); // prettier-ignore
      expect((await blocked.exited).code).toBe(1);
      expect(blocked.stderr.join('\n')).toMatch(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
