import { httpUrl } from '@svc/shared';
import { z } from 'zod';
import type { Route } from '../http/node-server.js';
import { readJson, sendError, sendJson, sendMethodNotAllowed } from '../http/io.js';
import type { CallResult } from '../http/outbound.js';
import { emitInput } from './events.js';
import type { EmitInput, EmitResult } from './events.js';

export const connectionChange = z
  .object({ key: z.string().min(1).max(256), centralUrl: httpUrl })
  .partial()
  .strict();
export type ConnectionChange = z.infer<typeof connectionChange>;

export interface DeviceControl {
  emit(input: EmitInput): Promise<EmitResult>;
  resend(eventId: string): Promise<EmitResult>;
  lose(personId: string): Promise<boolean>;
  setConnection(change: ConnectionChange): Promise<void>;
  heartbeatNow(): Promise<CallResult | null>;
  hasCentral(): boolean;
  hasEvent(eventId: string): boolean;
  connection(): { centralUrl: string | null; hasKey: boolean };
}

const noCentral = 'the device has no central URL (set one with POST /_sim/connection)';

/** Simulator-only endpoints of a device (under /_sim); `path` is what follows `_sim`. */
export function deviceControlRoutes(control: DeviceControl): Route {
  return async (req, res, path) => {
    const [action, argument, ...rest] = path;
    if (rest.length > 0) return false;
    if (req.method !== 'POST') {
      if (!action || !['emit', 'resend', 'lose', 'connection', 'heartbeat'].includes(action)) {
        return false;
      }
      sendMethodNotAllowed(res, ['POST']);
      return true;
    }

    if (action === 'emit' && argument === undefined) {
      const input = await readJson(req, emitInput);
      if (!control.hasCentral()) sendError(res, 409, 'no_central', noCentral);
      else sendJson(res, 200, await control.emit(input));
      return true;
    }
    if (action === 'resend' && argument !== undefined) {
      if (!control.hasEvent(argument)) sendError(res, 404, 'not_found', 'no such event was sent');
      else if (!control.hasCentral()) sendError(res, 409, 'no_central', noCentral);
      else sendJson(res, 200, await control.resend(argument));
      return true;
    }
    if (action === 'lose' && argument !== undefined) {
      if (await control.lose(argument)) sendJson(res, 200, { id: argument, lost: true });
      else sendError(res, 404, 'not_found', 'the person is not on this device');
      return true;
    }
    if (action === 'connection' && argument === undefined) {
      await control.setConnection(await readJson(req, connectionChange));
      sendJson(res, 200, control.connection());
      return true;
    }
    if (action === 'heartbeat' && argument === undefined) {
      const result = await control.heartbeatNow();
      if (result) sendJson(res, 200, result);
      else sendError(res, 409, 'not_sent', 'no central URL, or the device is muted');
      return true;
    }
    return false;
  };
}
