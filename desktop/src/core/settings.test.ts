import { settingsFromEnv, SettingsError } from './settings.js';

describe('settingsFromEnv', () => {
  it('defaults to the protocol port and timeout', () => {
    expect(settingsFromEnv({})).toEqual({
      discoveryPort: 20785,
      discoveryTimeoutS: 45,
      probeAddresses: null,
      siteUrl: null,
      httpPort: null,
      managementPorts: null,
    });
  });

  it('takes DISCOVERY_PORT and DISCOVERY_TIMEOUT like the central service', () => {
    expect(settingsFromEnv({ DISCOVERY_PORT: '21000', DISCOVERY_TIMEOUT: ' 90 ' })).toEqual({
      discoveryPort: 21000,
      discoveryTimeoutS: 90,
      probeAddresses: null,
      siteUrl: null,
      httpPort: null,
      managementPorts: null,
    });
  });

  it('takes the shell port and the management ports to ask, and refuses bad ones', () => {
    expect(
      settingsFromEnv({ CONSOLE_PORT: '8140', TERMINAL_MANAGEMENT_PORTS: '9182, 9181' }),
    ).toMatchObject({ httpPort: 8140, managementPorts: [9182, 9181] });
    expect(() => settingsFromEnv({ CONSOLE_PORT: 'http' })).toThrow(SettingsError);
    expect(() => settingsFromEnv({ TERMINAL_MANAGEMENT_PORTS: '8182,x' })).toThrow(SettingsError);
  });

  it('takes CONSOLE_SITE_URL for the web layer, and refuses one that is not http(s)', () => {
    expect(settingsFromEnv({ CONSOLE_SITE_URL: 'http://10.0.0.5' }).siteUrl).toBe(
      'http://10.0.0.5',
    );
    expect(() => settingsFromEnv({ CONSOLE_SITE_URL: 'ftp://10.0.0.5' })).toThrow(SettingsError);
  });

  it('takes a list of probe addresses', () => {
    expect(
      settingsFromEnv({ DISCOVERY_PROBE_ADDRESSES: '10.20.30.255, 192.168.1.255,' }).probeAddresses,
    ).toEqual(['10.20.30.255', '192.168.1.255']);
  });

  it.each([
    [{ DISCOVERY_PORT: '0' }],
    [{ DISCOVERY_PORT: '65536' }],
    [{ DISCOVERY_PORT: '20785abc' }],
    [{ DISCOVERY_PORT: '' }],
    [{ DISCOVERY_TIMEOUT: '-5' }],
    [{ DISCOVERY_TIMEOUT: '1.5' }],
    [{ DISCOVERY_PROBE_ADDRESSES: 'example.org' }],
    [{ DISCOVERY_PROBE_ADDRESSES: '10.0.0.256' }],
    [{ DISCOVERY_PROBE_ADDRESSES: ' , ' }],
  ])('refuses %j', (env) => {
    expect(() => settingsFromEnv(env)).toThrow(SettingsError);
  });
});
