import { deviceOut, deviceWithKey, type DeviceCreate, type DeviceOut } from '@svc/shared';
import type { z } from 'zod';
import { request } from '../api';

export type DeviceWithKey = z.infer<typeof deviceWithKey>;

/** The answer carries the device key: the only time it is shown. */
export function registerDevice(body: DeviceCreate): Promise<DeviceWithKey> {
  return request('POST', '/api/devices', { body, schema: deviceWithKey });
}

export function updateDevice(
  id: string,
  body: Partial<Omit<DeviceCreate, 'sn'>>,
): Promise<DeviceOut> {
  return request('PATCH', `/api/devices/${encodeURIComponent(id)}`, { body, schema: deviceOut });
}

/** A new key; the old one stops working at once. */
export function rotateDeviceKey(id: string): Promise<DeviceWithKey> {
  return request('POST', `/api/devices/${encodeURIComponent(id)}/key`, { schema: deviceWithKey });
}
