import { describe, expect, it } from '@jest/globals';
import { parseCli } from './args.js';
import type { CliRequest } from './args.js';
import { duration } from './durations.js';
import { faultFlag } from './faults-flag.js';
import { planNodes } from './plan.js';
import type { NodePlan } from './plan.js';

const noFile = (path: string): string => {
  throw new Error(`unexpected read of ${path}`);
};

function request(argv: string[], readFile: (path: string) => string = noFile): CliRequest {
  const outcome = parseCli(argv, readFile);
  if (outcome.kind !== 'run') throw new Error(`expected a run, got ${JSON.stringify(outcome)}`);
  return outcome.request;
}

function plans(argv: string[], readFile?: (path: string) => string): NodePlan[] {
  const planned = planNodes(request(argv, readFile));
  if ('error' in planned) throw new Error(planned.error);
  return planned.plans;
}

const errorOf = (argv: string[], readFile: (path: string) => string = noFile): string => {
  const outcome = parseCli(argv, readFile);
  if (outcome.kind === 'error') return outcome.message;
  if (outcome.kind !== 'run') return `no error: ${outcome.kind}`;
  const planned = planNodes(outcome.request);
  return 'error' in planned ? planned.error : 'no error';
};

describe('svc-sim flags', () => {
  it('turns the documented example into node options', () => {
    const result = plans([
      '--enrollment', 'ENR-1',
      '--display', 'DSP-1',
      '--device', 'DEV-1:secret-key@http://10.250.0.10:8000',
      '--bind', '10.250.0.21',
      '--broadcast', '10.250.0.255',
      '--state-dir', './sim-state',
      '--announce-interval', '10s',
      '--fault', 'refuse',
    ]); // prettier-ignore
    expect(result.map((plan) => [plan.kind, plan.id, plan.options.httpPort])).toEqual([
      ['enrollment', 'ENR-1', 8182],
      ['display', 'DSP-1', 8181],
      ['device', 'DEV-1', 8190],
    ]);
    expect(result[0]?.options).toMatchObject({
      bindAddress: '10.250.0.21',
      broadcastAddresses: ['10.250.0.255'],
      announceIntervalMs: 10_000,
      stateFile: 'sim-state/enrollment-ENR-1.json',
      faults: { refuse: true },
    });
    expect(result[2]?.options).toMatchObject({
      sn: 'DEV-1',
      key: 'secret-key',
      centralUrl: 'http://10.250.0.10:8000',
      bindAddress: '10.250.0.21',
      stateFile: 'sim-state/device-DEV-1.json',
      faults: { refuse: true },
    });
  });

  it('gives later nodes of a kind ephemeral ports unless told otherwise', () => {
    const result = plans([
      '--enrollment',
      'A',
      '--enrollment',
      'B',
      '--port',
      'B=9000',
      '--enrollment',
      'C',
    ]);
    expect(result.map((plan) => plan.options.httpPort)).toEqual([8182, 9000, 0]);
    const ephemeral = plans(['--display', 'A', '--device', 'D', '--ephemeral-ports']);
    expect(ephemeral.map((plan) => plan.options.httpPort)).toEqual([0, 0]);
  });

  it('applies a fault to one node when it is named', () => {
    const result = plans([
      '--enrollment',
      'A',
      '--display',
      'B',
      '--fault',
      'B:delay=250ms',
      '--fault',
      'drop=0.5',
    ]);
    expect(result[0]?.options.faults).toEqual({ dropRate: 0.5 });
    expect(result[1]?.options.faults).toEqual({ delayMs: 250, dropRate: 0.5 });
  });

  it('reads nodes and settings from a config file, flags overriding its settings', () => {
    const file = JSON.stringify({
      settings: {
        bindAddress: '10.0.0.5',
        checkinIntervalMs: 5000,
        centralUrl: 'http://10.0.0.1:8000',
      },
      nodes: [
        {
          kind: 'display',
          id: 'DSP-F',
          name: 'Lobby',
          httpPort: 8100,
          faults: { status500: true },
        },
        { kind: 'device', sn: 'DEV-F', key: 'k', capacity: 3 },
      ],
    });
    const result = plans(['--config', 'nodes.json', '--bind', '10.0.0.6'], () => file);
    expect(result[0]?.options).toMatchObject({
      id: 'DSP-F',
      name: 'Lobby',
      httpPort: 8100,
      bindAddress: '10.0.0.6',
      checkinIntervalMs: 5000,
      faults: { status500: true },
    });
    expect(result[1]?.options).toMatchObject({
      sn: 'DEV-F',
      key: 'k',
      capacity: 3,
      centralUrl: 'http://10.0.0.1:8000',
      httpPort: 8190,
    });
  });

  it('rejects what it cannot use, naming the problem', () => {
    expect(errorOf([])).toMatch(/nothing to simulate/);
    expect(errorOf(['--bogus'])).toMatch(/bogus/);
    expect(errorOf(['--enrollment', 'bad id!'])).toMatch(/enrollment/);
    expect(errorOf(['--enrollment', 'A', '--bind', '10.0.0'])).toMatch(/bind/);
    expect(errorOf(['--enrollment', 'A', '--announce-interval', '10'])).toMatch(/duration/);
    expect(errorOf(['--enrollment', 'A', '--fault', 'explode'])).toMatch(/not a fault/);
    expect(errorOf(['--enrollment', 'A', '--fault', 'B:refuse'])).toMatch(/no such node/);
    expect(errorOf(['--enrollment', 'A', '--enrollment', 'A'])).toMatch(/twice/);
    expect(errorOf(['--device', 'D@ftp://x'])).toMatch(/SN/);
    expect(
      errorOf(['--config', 'x.json'], () => '{"nodes":[{"kind":"printer","id":"P"}]}'),
    ).toMatch(/x.json/);
    expect(
      errorOf(['--config', 'x.json'], () => '{"nodes":[{"kind":"display","id":"P","typo":1}]}'),
    ).toMatch(/display P/);
    expect(errorOf(['--config', 'x.json'], () => 'not json')).toMatch(/x.json/);
  });

  it('answers --help and --version', () => {
    expect(parseCli(['--help'], noFile)).toEqual({ kind: 'help' });
    expect(parseCli(['-h'], noFile)).toEqual({ kind: 'help' });
    expect(parseCli(['--version'], noFile)).toEqual({ kind: 'version' });
  });
});

describe('flag values', () => {
  it('parses durations with units', () => {
    expect(duration.parse('500ms')).toBe(500);
    expect(duration.parse('10s')).toBe(10_000);
    expect(duration.parse('1.5m')).toBe(90_000);
    expect(duration.parse('0')).toBe(0);
    expect(duration.safeParse('10').success).toBe(false);
    expect(duration.safeParse('-1s').success).toBe(false);
  });

  it('parses fault specs, with node ids that contain colons', () => {
    expect(faultFlag.parse('refuse')).toEqual({ node: undefined, faults: { refuse: true } });
    expect(faultFlag.parse('status500')).toEqual({ node: undefined, faults: { status500: true } });
    expect(faultFlag.parse('save-different')).toEqual({
      node: undefined,
      faults: { saveDifferent: true },
    });
    expect(faultFlag.parse('mute')).toEqual({ node: undefined, faults: { mute: true } });
    expect(faultFlag.parse('drop')).toEqual({ node: undefined, faults: { dropRate: 1 } });
    expect(faultFlag.parse('ENR:1:delay=2s')).toEqual({ node: 'ENR:1', faults: { delayMs: 2000 } });
    expect(faultFlag.safeParse('drop=1.5').success).toBe(false);
  });
});
