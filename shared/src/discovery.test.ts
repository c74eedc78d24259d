import { DropReason, encodeDatagram, parseDatagram } from './discovery.js';

const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const announce = {
  svc: 'discovery',
  v: 1,
  type: 'announce',
  id: 'ENR-0001',
  kind: 'enrollment',
  name: 'Gate A enrollment',
  model: 'H1',
  version: '2.3.0',
  port: 8182,
  central: 'http://192.168.1.10',
};

describe('discovery datagrams (PROTOCOL §1)', () => {
  test('a valid announce parses; unknown fields are ignored', () => {
    const parsed = parseDatagram(enc({ ...announce, future: 'field' }));
    expect(parsed).toEqual({ ok: true, datagram: announce });
  });

  test('probe and central parse', () => {
    expect(parseDatagram(enc({ svc: 'discovery', v: 1, type: 'probe' })).ok).toBe(true);
    expect(
      parseDatagram(
        enc({ svc: 'discovery', v: 1, type: 'central', url: 'http://10.0.0.2:8080', name: 'svc' }),
      ).ok,
    ).toBe(true);
  });

  test.each([
    ['oversize', Buffer.alloc(1025, 0x20), DropReason.oversize],
    ['not JSON', enc('{"svc":'), DropReason.notJson],
    ['binary noise', Buffer.from([0xff, 0xfe, 0x00, 0x7b]), DropReason.notJson],
    ['array', enc([1, 2]), DropReason.notObject],
    ['other service', enc({ ...announce, svc: 'other' }), DropReason.wrongService],
    ['version 2', enc({ ...announce, v: 2 }), DropReason.unknownVersion],
    ['unknown type', enc({ ...announce, type: 'hello' }), DropReason.unknownType],
    ['bad id', enc({ ...announce, id: 'has space' }), DropReason.badField],
    ['id too long', enc({ ...announce, id: 'x'.repeat(65) }), DropReason.badField],
    ['bad kind', enc({ ...announce, kind: 'camera' }), DropReason.badField],
    ['port 0', enc({ ...announce, port: 0 }), DropReason.badField],
    ['port as string', enc({ ...announce, port: '8182' }), DropReason.badField],
    ['name too long', enc({ ...announce, name: 'n'.repeat(65) }), DropReason.badField],
    [
      'central not a URL',
      enc({ ...announce, central: 'javascript:alert(1)' }),
      DropReason.badField,
    ],
  ])('%s is dropped as %s', (_name, payload, reason) => {
    const parsed = parseDatagram(payload);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toBe(reason);
  });

  test('an empty central ("none saved") is valid', () => {
    expect(parseDatagram(enc({ ...announce, central: '' })).ok).toBe(true);
  });

  test('encode refuses what the other side would drop', () => {
    expect(() =>
      encodeDatagram({ svc: 'discovery', v: 1, type: 'central', url: 'ftp://x', name: 'svc' }),
    ).toThrow();
    const bytes = encodeDatagram({ svc: 'discovery', v: 1, type: 'probe' });
    expect(parseDatagram(bytes)).toEqual({
      ok: true,
      datagram: { svc: 'discovery', v: 1, type: 'probe' },
    });
  });
});
