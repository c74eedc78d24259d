import type { ServiceWarning } from '@svc/shared';
import { setLanguage } from './i18n.js';
import { centralProblem, centralPushError, centralWarnings } from './texts.js';

/** Issue #34: the heartbeat's warnings by code and values, never the service's English in zh-CN. */
describe('the central service warnings', () => {
  const loopback: ServiceWarning = {
    code: 'advertised_loopback',
    params: { address: 'http://127.0.0.1:8000' },
    message: 'the advertised central address http://127.0.0.1:8000 is a loopback address: …',
  };
  const drift: ServiceWarning = {
    code: 'clock_drift_devices',
    params: { count: 7, limitS: 60, devices: 'SN-A, SN-B', more: 5 },
    message: '7 device clock(s) off by more than 60 s: …',
  };
  const unknown: ServiceWarning = { code: 'future_thing', params: {}, message: 'in English' };
  afterAll(() => setLanguage('en'));

  test('in zh-CN each is worded from the catalog; an unknown code keeps the English', async () => {
    await setLanguage('zh-CN');
    const beat = { warnings: [], warningDetails: [loopback, drift, unknown] };
    expect(centralWarnings(beat)).toEqual([
      '对外公布的中心服务地址 http://127.0.0.1:8000 是环回地址：网络上的终端无法访问它（仅适用于单机测试）',
      '7 台设备的时钟偏差超过 60 秒：SN-A、SN-B，另有 5 台',
      'in English',
    ]);
    const problem = centralProblem({
      database: { state: 'up' },
      workers: {},
      warnings: [loopback.message],
      warningDetails: [loopback],
    });
    expect(problem).toContain('是环回地址');
    expect(problem).not.toContain('loopback');
    const down = centralProblem({
      database: { state: 'down', message: 'the database is not answering' },
      workers: {},
      warnings: [],
      warningDetails: [],
    });
    expect(down).toContain('数据库没有响应');
    expect(down).not.toContain('not answering');
  });

  test('in English the catalog says it too; an older service (strings only) is shown as sent', async () => {
    await setLanguage('en');
    expect(centralWarnings({ warnings: [], warningDetails: [drift] })).toEqual([
      '7 device clocks are off by more than 60 s: SN-A, SN-B and 5 more',
    ]);
    expect(centralWarnings({ warnings: ['old text'] })).toEqual(['old text']);
  });
});

/** Issue #34: a push the central service could not make, said from its code in zh-CN. */
describe('why the central service could not push', () => {
  afterAll(() => setLanguage('en'));

  test('by code and values; the English only without a detail or for an unknown code', async () => {
    await setLanguage('zh-CN');
    const refused = {
      error: 'connection refused at 10.0.0.7:8182',
      errorDetail: {
        code: 'terminal_unreachable',
        params: { where: '10.0.0.7:8182', cause: 'ECONNREFUSED' },
        message: 'connection refused at 10.0.0.7:8182',
      },
    };
    expect(centralPushError(refused)).not.toContain('connection refused');
    expect(centralPushError(refused)).toContain('10.0.0.7:8182');
    const offline = {
      error: 'ENR-1 is not online: no announce within 45 s',
      errorDetail: {
        code: 'terminal_not_online',
        params: { id: 'ENR-1', seconds: 45 },
        message: 'ENR-1 is not online: no announce within 45 s',
      },
    };
    expect(centralPushError(offline)).toBe('ENR-1 不在线：45 秒内未收到其广播');
    expect(centralPushError({ error: 'from an older service' })).toBe('from an older service');
    expect(
      centralPushError({
        error: 'x',
        errorDetail: { code: 'something_new', params: {}, message: 'in English' },
      }),
    ).toBe('in English');
  });
});
