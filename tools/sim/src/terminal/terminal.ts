import {
  ANNOUNCE_INTERVAL_MS,
  ANNOUNCE_JITTER_MS,
  CHECKIN_INTERVAL_MS,
  DEFAULT_DISCOVERY_PORT,
  DISPLAY_TERMINAL_PORT,
  ENROLLMENT_TERMINAL_PORT,
  PROTOCOL_VERSION,
  nodeId,
  port,
  terminalKind,
} from '@svc/shared';
import type { EnrollmentPerson, PanelEvent, TerminalConfig, TerminalKind } from '@svc/shared';
import { z } from 'zod';
import { repeat, resolveDeps } from '../deps.js';
import type { Cancel, SimDeps } from '../deps.js';
import { differentCentralUrl, faultsSchema } from '../http/faults.js';
import type { Faults } from '../http/faults.js';
import { registerControl, startNodeServer } from '../http/node-server.js';
import { createOutbound, joinUrl } from '../http/outbound.js';
import type { CallResult } from '../http/outbound.js';
import { SIM_VERSION, nodeUrl } from '../node-common.js';
import { startAnnouncer } from './announcer.js';
import type { AnnounceRecord, Announcer, CentralHeard } from './announcer.js';
import { openConfigStore } from './config-store.js';
import { RecentIds } from './recent-ids.js';
import { terminalRoutes } from './routes.js';

const shortText = z.string().max(64);
/** Event ids a display remembers, to show a repeated delivery once. */
const SHOWN_IDS_KEPT = 10_000;

export const terminalOptionsSchema = z.object({
  id: nodeId,
  kind: terminalKind,
  name: shortText.optional(),
  model: shortText.default('svc-sim'),
  version: shortText.default(SIM_VERSION),
  /** The HTTP server and the announce socket bind here. */
  bindAddress: z.ipv4().default('0.0.0.0'),
  /** Default 8182 enrollment / 8181 display; 0 = ephemeral. */
  httpPort: z.number().int().min(0).max(65535).optional(),
  discoveryPort: port.default(DEFAULT_DISCOVERY_PORT),
  broadcastAddresses: z.array(z.ipv4()).min(1).default(['255.255.255.255']),
  /** 0 disables the periodic announce. */
  announceIntervalMs: z.number().int().min(0).default(ANNOUNCE_INTERVAL_MS),
  /** Default ±1 s, and never more than a tenth of the interval. */
  announceJitterMs: z.number().int().min(0).optional(),
  /** 0 disables the periodic check-in (the one right after a save remains). */
  checkinIntervalMs: z.number().int().min(0).default(CHECKIN_INTERVAL_MS),
  /** Hear probes on the discovery port (SO_REUSEADDR); off when that port cannot be shared. */
  listenForProbes: z.boolean().default(true),
  stateFile: z.string().min(1).optional(),
  managementKey: z.string().min(1).optional(),
  faults: faultsSchema.default({}),
});
export type TerminalOptions = z.input<typeof terminalOptionsSchema>;

export interface TerminalState {
  node: 'terminal';
  id: string;
  kind: TerminalKind;
  url: string;
  config: TerminalConfig;
  hasToken: boolean;
  lastCheckin: CallResult | null;
  lastCentralHeard: CentralHeard | null;
  lastAnnounce: AnnounceRecord | null;
  lastEvent: PanelEvent | null;
  droppedDatagrams: number;
  faults: Faults;
}

export interface TerminalHandle {
  readonly id: string;
  readonly kind: TerminalKind;
  /** http://<address>:<port> of the management API (127.0.0.1 when bound to 0.0.0.0). */
  readonly url: string;
  readonly port: number;
  config(): TerminalConfig;
  lastCheckin(): CallResult | null;
  lastCentralHeard(): CentralHeard | null;
  lastAnnounce(): AnnounceRecord | null;
  lastEvent(): PanelEvent | null;
  announceNow(): Promise<void>;
  /** Checks in at once (when a central URL is saved) and resolves with the result. */
  checkinNow(): Promise<CallResult | null>;
  /**
   * An enrollment terminal enrolls a person (PROTOCOL §3 `POST /api/enrollment/persons`) with
   * its token; null when no central URL is saved.
   */
  enroll(person: EnrollmentPerson): Promise<CallResult | null>;
  faults(): Faults;
  /** Replaces all faults; `{}` clears them. */
  setFaults(faults: Faults): Promise<Faults>;
  state(): TerminalState;
  stop(): Promise<void>;
}

/** Starts a simulated enrollment or display terminal (PROTOCOL §1–§2). */
export async function startTerminal(
  input: TerminalOptions,
  depOverrides: Partial<SimDeps> = {},
): Promise<TerminalHandle> {
  const options = terminalOptionsSchema.parse(input);
  const deps = resolveDeps(depOverrides);
  const { id, kind } = options;
  const defaultPort = kind === 'display' ? DISPLAY_TERMINAL_PORT : ENROLLMENT_TERMINAL_PORT;
  const jitterMs =
    options.announceJitterMs ??
    Math.min(ANNOUNCE_JITTER_MS, Math.floor(options.announceIntervalMs / 10));
  const store = await openConfigStore(id, kind, options.stateFile);

  let faults: Faults = {};
  let lastCheckin: CallResult | null = null;
  const outbound = createOutbound(deps.fetch, () => deps.clock.now());
  let lastEvent: PanelEvent | null = null;
  const shown = new RecentIds(SHOWN_IDS_KEPT);
  let checkins: Cancel | undefined;
  let announcer: Announcer | undefined;
  let url = '';

  const checkinNow = async (): Promise<CallResult | null> => {
    const central = store.config().centralUrl;
    if (!central || faults.mute) return null;
    const url = joinUrl(central, '/api/terminal/checkin');
    const result = await outbound.post(url, { id, kind }, store.token());
    lastCheckin = result;
    deps.onEvent({
      type: 'checkin',
      node: id,
      url,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
    });
    return result;
  };
  const enroll = async (person: EnrollmentPerson): Promise<CallResult | null> => {
    const central = store.config().centralUrl;
    if (!central) return null;
    const url = joinUrl(central, '/api/enrollment/persons');
    const result = await outbound.post(url, person, store.token());
    deps.onEvent({
      type: 'enroll',
      node: id,
      url,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
    });
    return result;
  };
  const restartCheckins = (): void => {
    checkins?.cancel();
    checkins = repeat(deps.clock, options.checkinIntervalMs, async () => {
      await checkinNow();
    });
  };

  const routes = terminalRoutes({
    kind,
    managementKey: options.managementKey,
    config: () => store.config(),
    async save(update) {
      const override = faults.saveDifferent ? differentCentralUrl(update.centralUrl) : undefined;
      const saved = await store.save(update, deps.clock.now(), override);
      deps.onEvent({
        type: 'config-saved',
        node: id,
        centralUrl: saved.centralUrl,
        panelUrl: saved.panelUrl,
      });
      void announcer?.announceNow();
      restartCheckins();
      return saved;
    },
    status: () => ({ ...store.config(), lastEvent }),
    show(event) {
      // Panel delivery is at least once (PROTOCOL §4: a sender that could not record the 2xx
      // sends again); the event id makes it idempotent here, as a display must.
      if (!shown.add(event.eventId)) {
        deps.onEvent({ type: 'panel-repeat', node: id, eventId: event.eventId });
        return;
      }
      lastEvent = event;
      deps.onEvent({ type: 'panel-event', node: id, eventId: event.eventId });
    },
  });

  const server = await startNodeServer(
    { api: routes, state: () => state() },
    { host: options.bindAddress, port: options.httpPort ?? defaultPort },
    deps,
    options.faults,
    (next) => {
      faults = next;
      deps.onEvent({ type: 'faults', node: id, faults: next });
    },
  );
  url = nodeUrl(options.bindAddress, server.listener.port);

  try {
    announcer = await startAnnouncer(
      {
        nodeId: id,
        bindAddress: options.bindAddress,
        discoveryPort: options.discoveryPort,
        broadcastAddresses: options.broadcastAddresses,
        intervalMs: options.announceIntervalMs,
        jitterMs,
        listenForProbes: options.listenForProbes,
        muted: () => faults.mute === true,
        datagram: () => ({
          svc: 'discovery',
          v: PROTOCOL_VERSION,
          type: 'announce',
          id,
          kind,
          name: options.name ?? `svc-sim ${kind} ${id}`.slice(0, 64),
          model: options.model,
          version: options.version,
          port: server.listener.port,
          central: store.config().centralUrl,
        }),
      },
      deps,
    );
  } catch (error) {
    await server.listener.close();
    throw error;
  }
  // A terminal that already knows its central service proves the connection again after a restart.
  if (store.config().centralUrl) restartCheckins();

  const running = announcer;
  function state(): TerminalState {
    return {
      node: 'terminal',
      id,
      kind,
      url,
      config: store.config(),
      hasToken: store.token() !== undefined,
      lastCheckin,
      lastCentralHeard: announcer?.lastCentralHeard() ?? null,
      lastAnnounce: announcer?.lastAnnounce() ?? null,
      lastEvent,
      droppedDatagrams: announcer?.dropped() ?? 0,
      faults: { ...faults },
    };
  }

  let stopping: Promise<void> | undefined;
  const handle: TerminalHandle = {
    id,
    kind,
    url,
    port: server.listener.port,
    config: () => store.config(),
    lastCheckin: () => lastCheckin,
    lastCentralHeard: () => running.lastCentralHeard(),
    lastAnnounce: () => running.lastAnnounce(),
    lastEvent: () => lastEvent,
    announceNow: () => running.announceNow(),
    checkinNow,
    enroll,
    faults: () => ({ ...faults }),
    setFaults: (next) => server.faults.set(next),
    state,
    stop() {
      stopping ??= (async () => {
        checkins?.cancel();
        outbound.close();
        await running.stop();
        await server.listener.close();
      })();
      return stopping;
    },
  };
  registerControl(handle, server.target);
  return handle;
}
