import {
  deviceOut,
  deviceSyncOut,
  deviceWithKey,
  listOf,
  reconciliationStarted,
  retriedOut,
  syncTaskList,
  type DeviceCreate,
  type DeviceOut,
  type DeviceSyncOut,
} from '@svc/shared';
import type { z } from 'zod';
import { listAll, request } from '../api';

export type DeviceWithKey = z.infer<typeof deviceWithKey>;

const deviceList = listOf(deviceOut);

/** Every device of the organization. */
export function listAllDevices(signal?: AbortSignal): Promise<DeviceOut[]> {
  return listAll('/api/devices', deviceList, signal);
}

/** The answer carries the device key: the only time it is shown. */
export function registerDevice(body: DeviceCreate): Promise<DeviceWithKey> {
  return request('POST', '/api/devices', { body, schema: deviceWithKey });
}

export function updateDevice(
  id: string,
  body: Partial<Omit<DeviceCreate, 'sn'>>,
  ifMatch?: string,
): Promise<DeviceOut> {
  const path = `/api/devices/${encodeURIComponent(id)}`;
  return request('PATCH', path, { body, schema: deviceOut, ifMatch });
}

/** Removes a device: its key stops working at once. */
export function removeDevice(id: string): Promise<undefined> {
  return request('DELETE', `/api/devices/${encodeURIComponent(id)}`);
}

/** A new key; the old one stops working at once. */
export function rotateDeviceKey(id: string): Promise<DeviceWithKey> {
  return request('POST', `/api/devices/${encodeURIComponent(id)}/key`, { schema: deviceWithKey });
}

export function getDevice(id: string, signal?: AbortSignal): Promise<DeviceOut> {
  return request('GET', `/api/devices/${encodeURIComponent(id)}`, { schema: deviceOut, signal });
}

/** Task counts by state, people held, the last reconciliation and one in progress. */
export function getDeviceSync(id: string, signal?: AbortSignal): Promise<DeviceSyncOut> {
  const path = `/api/sync/devices/${encodeURIComponent(id)}`;
  return request('GET', path, { schema: deviceSyncOut, signal });
}

/** The device's tasks, most recently changed first (the first 50). */
export function listDeviceTasks(id: string, signal?: AbortSignal) {
  const path = `/api/sync/tasks?deviceId=${encodeURIComponent(id)}&pageSize=50`;
  return request('GET', path, { schema: syncTaskList, signal });
}

export async function retryFailed(id: string): Promise<number> {
  const path = `/api/sync/devices/${encodeURIComponent(id)}/retry-failed`;
  return (await request('POST', path, { schema: retriedOut })).retried;
}

export function reconcile(id: string) {
  const path = `/api/sync/devices/${encodeURIComponent(id)}/reconcile`;
  return request('POST', path, { schema: reconciliationStarted });
}
