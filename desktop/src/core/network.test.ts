import type { NetworkInterfaceInfo } from 'node:os';
import { probeAddresses, subnetBroadcast } from './network.js';

function v4(address: string, netmask: string, internal = false): NetworkInterfaceInfo {
  return { address, netmask, family: 'IPv4', mac: '00:00:00:00:00:00', internal, cidr: null };
}

describe('subnetBroadcast', () => {
  it.each([
    ['192.168.1.10', '255.255.255.0', '192.168.1.255'],
    ['10.250.0.11', '255.255.255.0', '10.250.0.255'],
    ['172.16.5.4', '255.240.0.0', '172.31.255.255'],
    ['10.1.2.3', '255.0.0.0', '10.255.255.255'],
    ['192.168.200.1', '255.255.254.0', '192.168.201.255'],
  ])('%s/%s → %s', (address, netmask, expected) => {
    expect(subnetBroadcast(address, netmask)).toBe(expected);
  });

  it('has none for /31, /32 or malformed input', () => {
    expect(subnetBroadcast('10.0.0.1', '255.255.255.255')).toBeNull();
    expect(subnetBroadcast('10.0.0.1', '255.255.255.254')).toBeNull();
    expect(subnetBroadcast('10.0.0', '255.255.255.0')).toBeNull();
    expect(subnetBroadcast('10.0.0.256', '255.255.255.0')).toBeNull();
    expect(subnetBroadcast('10.0.0.1', '255.0.255.0')).toBeNull();
  });
});

describe('probeAddresses', () => {
  it('adds each external IPv4 subnet broadcast to the limited broadcast, once', () => {
    const ipv6: NetworkInterfaceInfo = {
      address: 'fe80::1',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '00:00:00:00:00:00',
      internal: false,
      cidr: null,
      scopeid: 2,
    };
    expect(
      probeAddresses({
        lo: [v4('127.0.0.1', '255.0.0.0', true)],
        eth0: [v4('192.168.1.10', '255.255.255.0'), ipv6],
        eth1: [v4('192.168.1.11', '255.255.255.0')],
        wg0: [v4('10.8.0.2', '255.255.255.255')],
        br0: [v4('10.250.0.1', '255.255.255.0')],
        gone: undefined,
      }),
    ).toEqual(['255.255.255.255', '192.168.1.255', '10.250.0.255']);
  });

  it('is the limited broadcast alone on a host with no network', () => {
    expect(probeAddresses({ lo: [v4('127.0.0.1', '255.0.0.0', true)] })).toEqual([
      '255.255.255.255',
    ]);
  });
});
