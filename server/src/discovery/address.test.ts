import { advertisedUrl, addressWarnings, type HostInfo, type LocalInterface } from './address.js';

const iface = (
  name: string,
  address: string,
  netmask = '255.255.255.0',
  internal = false,
): LocalInterface => ({
  name,
  address,
  netmask,
  family: 'IPv4',
  internal,
});
const host = (interfaces: LocalInterface[], inContainer = false): HostInfo => ({
  interfaces: () => interfaces,
  inContainer: () => inContainer,
});
const LAPTOP = host([
  iface('lo', '127.0.0.1', '255.0.0.0', true),
  iface('docker0', '172.17.0.1', '255.255.0.0'),
  iface('veth1a2b', '172.18.0.1', '255.255.0.0'),
  iface('eth0', '192.168.1.10'),
  iface('wlan0', '10.20.0.5', '255.255.252.0'),
]);
const none = { httpBaseUrl: '', host: '', webPort: 80 };

describe('advertised central address', () => {
  test('the interface on the terminal’s subnet, port left out when 80', () => {
    expect(advertisedUrl(none, LAPTOP, '192.168.1.77')).toEqual({
      ok: true,
      url: 'http://192.168.1.10',
      source: 'interface',
    });
    expect(advertisedUrl({ ...none, webPort: 8080 }, LAPTOP, '10.20.3.9')).toEqual({
      ok: true,
      url: 'http://10.20.0.5:8080',
      source: 'interface',
    });
  });

  test('never a loopback or container-bridge address, and no guess when nothing matches', () => {
    const bridged = advertisedUrl(none, LAPTOP, '172.17.0.5');
    expect(bridged.ok).toBe(false);
    expect(advertisedUrl(none, LAPTOP, '127.0.0.1').ok).toBe(false);
    const routed = advertisedUrl(none, LAPTOP, '10.99.0.4');
    expect(routed).toEqual({
      ok: false,
      problem: expect.stringMatching(
        /no local interface on the subnet of terminal 10\.99\.0\.4: set DISCOVERY_HOST/,
      ),
      // The same as a code and values, for the site's language (issue 34).
      detail: expect.objectContaining({
        code: 'address_no_interface',
        params: { terminal: '10.99.0.4' },
      }),
    });
  });

  test('inside a container nothing is guessed', () => {
    expect(
      advertisedUrl(none, host([iface('eth0', '192.168.1.10')], true), '192.168.1.77'),
    ).toEqual({
      ok: false,
      problem: expect.stringMatching(/container.*DISCOVERY_HOST/),
      detail: expect.objectContaining({ code: 'address_in_container', params: {} }),
    });
  });

  test('a host-networked container sees the host’s interfaces and may choose', () => {
    expect(
      advertisedUrl(
        none,
        host([iface('docker0', '172.17.0.1', '255.255.0.0'), iface('eth0', '192.168.1.10')], true),
        '192.168.1.77',
      ),
    ).toMatchObject({
      ok: true,
      url: 'http://192.168.1.10',
    });
  });

  test('explicit settings are used as given; a loopback one draws a warning', () => {
    expect(
      advertisedUrl({ ...none, httpBaseUrl: 'http://central.site:8080' }, LAPTOP, '10.99.0.4'),
    ).toMatchObject({ url: 'http://central.site:8080' });
    expect(
      advertisedUrl({ ...none, host: '192.168.1.10', webPort: 80 }, host([], true)),
    ).toMatchObject({ url: 'http://192.168.1.10' });
    expect(addressWarnings({ ...none, host: '127.0.0.1' })[0]).toEqual({
      code: 'advertised_loopback',
      params: { address: '127.0.0.1' },
      message: expect.stringMatching(/loopback/),
    });
    expect(addressWarnings({ ...none, httpBaseUrl: 'http://localhost:8000' })[0]?.message).toMatch(
      /loopback/,
    );
    expect(addressWarnings({ ...none, host: '192.168.1.10' })).toEqual([]);
  });
});
