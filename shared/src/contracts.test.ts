import {
  centralUrl,
  configureRequest,
  devicePersonPut,
  errorBody,
  loginRequest,
  panelEvent,
  pushRequest,
  recognitionEventIn,
  terminalConfigUpdate,
  withHttpScheme,
} from './index.js';

describe('HTTP contracts', () => {
  test('central URL is http://host[:port] only', () => {
    expect(centralUrl.safeParse('http://192.168.1.10').success).toBe(true);
    expect(centralUrl.safeParse('http://192.168.1.10:8080/').success).toBe(true);
    for (const bad of [
      'https://x',
      'http://x/app',
      'http://u:p@x',
      'http://x?a=1',
      '10.0.0.1',
      '',
    ]) {
      expect(centralUrl.safeParse(bad).success).toBe(false);
    }
  });

  test('terminal config push: token optional, invalid URL refused', () => {
    expect(terminalConfigUpdate.safeParse({ centralUrl: 'http://10.0.0.2' }).success).toBe(true);
    expect(terminalConfigUpdate.safeParse({ centralUrl: 'nope' }).success).toBe(false);
    // A central address typed without a scheme is taken as http://; one with a scheme stays.
    expect(withHttpScheme(' 192.168.1.10:8000 ')).toBe('http://192.168.1.10:8000');
    expect(withHttpScheme('localhost')).toBe('http://localhost');
    expect(withHttpScheme('https://central.example')).toBe('https://central.example');
    expect(withHttpScheme('')).toBe('');
  });

  test('recognition event: uuid, score range, ms-precision UTC time', () => {
    const ok = {
      eventId: '6f1c1d1e-2b1a-4c3d-9e8f-0a1b2c3d4e5f',
      sn: 'DEV-1',
      personId: null,
      score: 0.97,
      time: '2026-11-22T06:30:00.000Z',
    };
    expect(recognitionEventIn.safeParse(ok).success).toBe(true);
    expect(recognitionEventIn.safeParse({ ...ok, score: 1.2 }).success).toBe(false);
    expect(recognitionEventIn.safeParse({ ...ok, time: '2026-11-22 06:30' }).success).toBe(false);
    expect(recognitionEventIn.safeParse({ ...ok, eventId: 'x' }).success).toBe(false);
  });

  test('device push needs a SHA-256 and a version', () => {
    const put = { id: 'p1', name: 'A', photo: 'AAAA', photoSha256: 'a'.repeat(64), version: 3 };
    expect(devicePersonPut.safeParse(put).success).toBe(true);
    expect(devicePersonPut.safeParse({ ...put, photoSha256: 'XYZ' }).success).toBe(false);
  });

  test('panel event allows a stranger and an unassigned device', () => {
    expect(
      panelEvent.safeParse({
        eventId: 'e1',
        time: '2026-11-22T06:30:00.000Z',
        score: 0.5,
        person: null,
        device: { sn: 'D', name: 'Door' },
        space: null,
      }).success,
    ).toBe(true);
  });

  test('configure request needs at least one id; error body shape', () => {
    expect(configureRequest.safeParse({ ids: [] }).success).toBe(false);
    expect(errorBody.safeParse({ error: { code: 'csrf', message: 'x' } }).success).toBe(true);
    expect(errorBody.safeParse({ error: { code: 'Bad Code', message: 'x' } }).success).toBe(false);
    expect(loginRequest.safeParse({ username: '', password: 'x' }).success).toBe(false);
  });

  test("the console's push: configure's rules for ids, keys and panel, a central address named", () => {
    const request = {
      ids: ['ENR-1', 'DSP-2'],
      centralUrl: 'http://10.0.0.1:8000',
      panelUrl: 'http://10.0.0.1:8000/panel',
      keys: { 'ENR-1': 'k3y!' },
      direct: true,
    };
    expect(pushRequest.parse(request)).toEqual(request);
    // More terminals than one configure takes: the console pushes each on its own.
    const many = Array.from({ length: 300 }, (_, i) => `ENR-${i}`);
    expect(configureRequest.safeParse({ ids: many }).success).toBe(false);
    expect(pushRequest.safeParse({ ids: many, centralUrl: 'http://10.0.0.1' }).success).toBe(true);
    for (const bad of [
      { ids: [], centralUrl: 'http://10.0.0.1' },
      { ids: ['ENR 1'], centralUrl: 'http://10.0.0.1' },
      { ids: ['ENR-1'] },
      { ids: ['ENR-1'], centralUrl: 'ftp://x' },
      { ids: ['ENR-1'], centralUrl: 'http://10.0.0.1', keys: { 'ENR-1': 'two words' } },
      { ids: ['ENR-1'], centralUrl: 'http://10.0.0.1', panelUrl: 'panel' },
      { ids: ['ENR-1'], centralUrl: 'http://10.0.0.1', addresses: {} },
    ]) {
      expect(pushRequest.safeParse(bad).success).toBe(false);
    }
  });
});
