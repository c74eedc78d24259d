import { deviceSn, httpUrl } from '@svc/shared';
import type { DevicePersonState } from '@svc/shared';
import { z } from 'zod';
import { repeat, resolveDeps } from '../deps.js';
import type { Cancel, SimDeps } from '../deps.js';
import { faultsSchema } from '../http/faults.js';
import type { Faults } from '../http/faults.js';
import { registerControl, startNodeServer } from '../http/node-server.js';
import { createOutbound, joinUrl } from '../http/outbound.js';
import type { CallResult } from '../http/outbound.js';
import { nodeUrl } from '../node-common.js';
import { connectionChange, deviceControlRoutes } from './control.js';
import type { ConnectionChange } from './control.js';
import { createEventSender } from './events.js';
import type { EmitInput, EmitResult } from './events.js';
import { openPersonStore } from './person-store.js';
import { photoLimitsSchema } from './photo-limits.js';
import { deviceRoutes } from './routes.js';

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 20_000;

export const deviceOptionsSchema = z.object({
  sn: deviceSn,
  /** The device key: the central service must send it as a bearer; the device sends it back. */
  key: z.string().min(1).max(256).optional(),
  bindAddress: z.ipv4().default('0.0.0.0'),
  /** 0 (the default) = ephemeral. */
  httpPort: z.number().int().min(0).max(65535).default(0),
  centralUrl: httpUrl.optional(),
  /** 0 = no automatic heartbeats (`heartbeatNow()` still sends one). */
  heartbeatIntervalMs: z.number().int().min(0).default(DEFAULT_HEARTBEAT_INTERVAL_MS),
  /**
   * How far the device's clock is off (ms, positive: ahead). Heartbeats carry the device's
   * time and events are stamped with it, as a device with a wrong clock would.
   */
  clockOffsetMs: z.number().int().default(0),
  /** Most people the device holds; a PUT of one more answers 507. */
  capacity: z.number().int().min(0).optional(),
  /** Photos the device refuses: over a byte or side limit, not baseline 4:2:0 (photo-limits.ts). */
  photoLimits: photoLimitsSchema.default({}),
  stateFile: z.string().min(1).optional(),
  faults: faultsSchema.default({}),
  /**
   * Keep a log of every PUT and DELETE accepted (`pushes()`): what a test counts repeats with.
   * Off by default: a benchmark's devices take millions of pushes.
   */
  pushLog: z.boolean().default(false),
});

/** One push the device accepted, in arrival order (PUT: the version and photo stored). */
export interface DevicePush {
  action: 'put' | 'delete';
  personId: string;
  version?: number;
  photoSha256?: string;
}
export type DeviceOptions = z.input<typeof deviceOptionsSchema>;

export interface DeviceState {
  node: 'device';
  sn: string;
  url: string;
  centralUrl: string | null;
  hasKey: boolean;
  persons: Record<string, DevicePersonState>;
  lastHeartbeat: CallResult | null;
  lastEvent: EmitResult | null;
  faults: Faults;
}

export interface DeviceHandle {
  readonly sn: string;
  /** The base URL to register in the central service. */
  readonly url: string;
  readonly port: number;
  /** The people stored, by id. */
  persons(): Record<string, DevicePersonState>;
  /** One person as stored (without copying every other one). */
  person(personId: string): DevicePersonState | undefined;
  /** How many people are stored (without copying them). */
  personCount(): number;
  /** Forgets a person without telling anyone (a device that lost it); false when absent. */
  removePersonSilently(personId: string): Promise<boolean>;
  emitEvent(input: EmitInput): Promise<EmitResult>;
  resendEvent(eventId: string): Promise<EmitResult>;
  lastHeartbeat(): CallResult | null;
  lastEvent(): EmitResult | null;
  /** Sends a heartbeat now; null when there is no central URL or the device is muted. */
  heartbeatNow(): Promise<CallResult | null>;
  /** Sets the key and/or central URL (a device is often registered after it started). */
  setConnection(change: ConnectionChange): Promise<void>;
  /** Sets how far the device's clock is off (ms, positive: ahead). */
  setClockOffset(ms: number): void;
  faults(): Faults;
  setFaults(faults: Faults): Promise<Faults>;
  state(): DeviceState;
  /** Every push accepted so far, oldest first (empty unless started with `pushLog`). */
  pushes(): readonly DevicePush[];
  /**
   * PUTs of exactly the version and photo the device already held: a count kept always (no
   * log), for a benchmark's millions of pushes.
   */
  repeatedPuts(): number;
  stop(): Promise<void>;
}

/** Starts a simulated recognition device (PROTOCOL §3). */
export async function startDevice(
  input: DeviceOptions,
  depOverrides: Partial<SimDeps> = {},
): Promise<DeviceHandle> {
  const options = deviceOptionsSchema.parse(input);
  const realDeps = resolveDeps(depOverrides);
  let clockOffsetMs = options.clockOffsetMs;
  // The device's own clock: what it stamps on heartbeats and events.
  const deps: SimDeps = {
    ...realDeps,
    clock: {
      now: () => new Date(realDeps.clock.now().getTime() + clockOffsetMs),
      schedule: (ms, callback) => realDeps.clock.schedule(ms, callback),
    },
  };
  const { sn } = options;
  const store = await openPersonStore(sn, options.stateFile, {
    ...(options.key ? { key: options.key } : {}),
    ...(options.centralUrl ? { centralUrl: options.centralUrl } : {}),
  });
  const connection = () => ({ key: store.key(), centralUrl: store.centralUrl() });
  const outbound = createOutbound(deps.fetch, () => deps.clock.now());
  const events = createEventSender(sn, connection, outbound, deps);
  let faults: Faults = {};
  let lastHeartbeat: CallResult | null = null;
  let heartbeats: Cancel | undefined;
  let url = '';
  const pushLog: DevicePush[] = [];
  let repeatedPuts = 0;

  const heartbeatNow = async (): Promise<CallResult | null> => {
    const central = store.centralUrl();
    if (!central || faults.mute) return null;
    const url = joinUrl(central, '/api/device/heartbeat');
    const result = await outbound.post(
      url,
      { sn, time: deps.clock.now().toISOString() },
      store.key(),
    );
    lastHeartbeat = result;
    deps.onEvent({
      type: 'heartbeat',
      node: sn,
      url,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
    });
    return result;
  };
  const restartHeartbeats = (): void => {
    heartbeats?.cancel();
    if (options.heartbeatIntervalMs <= 0) return;
    heartbeats = repeat(deps.clock, options.heartbeatIntervalMs, async () => {
      await heartbeatNow();
    });
  };

  const removePersonSilently = async (personId: string): Promise<boolean> => {
    const removed = await store.remove(personId);
    if (removed) deps.onEvent({ type: 'person', node: sn, action: 'lose', personId });
    return removed;
  };
  const setConnection = async (change: ConnectionChange): Promise<void> => {
    const parsed = connectionChange.parse(change);
    await store.setConnection(parsed);
    if (parsed.centralUrl !== undefined) restartHeartbeats();
  };

  const state = (): DeviceState => ({
    node: 'device',
    sn,
    url,
    centralUrl: store.centralUrl() ?? null,
    hasKey: store.key() !== undefined,
    persons: store.all(),
    lastHeartbeat,
    lastEvent: events.last(),
    faults: { ...faults },
  });

  const server = await startNodeServer(
    {
      api: deviceRoutes({
        store,
        capacity: options.capacity,
        photoLimits: options.photoLimits,
        saveDifferent: () => faults.saveDifferent === true,
        onChange: (action, personId, stored, repeat) => {
          if (repeat) repeatedPuts++;
          if (options.pushLog) {
            pushLog.push({
              action,
              personId,
              ...(stored && { version: stored.version, photoSha256: stored.photoSha256 }),
            });
          }
          deps.onEvent({ type: 'person', node: sn, action, personId });
        },
      }),
      control: deviceControlRoutes({
        emit: (emitted) => events.emit(emitted),
        resend: (eventId) => events.resend(eventId),
        lose: removePersonSilently,
        setConnection,
        heartbeatNow,
        hasCentral: () => store.centralUrl() !== undefined,
        hasEvent: (eventId) => events.has(eventId),
        connection: () => ({ centralUrl: store.centralUrl() ?? null, hasKey: !!store.key() }),
      }),
      state,
    },
    { host: options.bindAddress, port: options.httpPort },
    deps,
    options.faults,
    (next) => {
      faults = next;
      deps.onEvent({ type: 'faults', node: sn, faults: next });
    },
  );
  url = nodeUrl(options.bindAddress, server.listener.port);
  restartHeartbeats();

  let stopping: Promise<void> | undefined;
  const handle: DeviceHandle = {
    sn,
    url,
    port: server.listener.port,
    persons: () => store.all(),
    personCount: () => store.size(),
    person: (personId) => {
      const state = store.get(personId);
      return state && { ...state };
    },
    removePersonSilently,
    emitEvent: (emitted) => events.emit(emitted),
    resendEvent: (eventId) => events.resend(eventId),
    lastHeartbeat: () => lastHeartbeat,
    lastEvent: () => events.last(),
    heartbeatNow,
    setConnection,
    setClockOffset: (ms) => {
      clockOffsetMs = ms;
    },
    faults: () => ({ ...faults }),
    setFaults: (next) => server.faults.set(next),
    state,
    pushes: () => pushLog,
    repeatedPuts: () => repeatedPuts,
    stop() {
      stopping ??= (async () => {
        heartbeats?.cancel();
        outbound.close();
        await server.listener.close();
      })();
      return stopping;
    },
  };
  registerControl(handle, server.target);
  return handle;
}
