/**
 * @svc/sim: simulated enrollment and display terminals and recognition devices that speak the
 * svc wire contract (PROTOCOL §1–§4) on real sockets, for tests, demos and the `svc-sim` CLI.
 */
export { startTerminal, terminalOptionsSchema } from './terminal/terminal.js';
export type { TerminalHandle, TerminalOptions, TerminalState } from './terminal/terminal.js';
export type { AnnounceRecord, CentralHeard } from './terminal/announcer.js';
export { nextAnnounceDelay } from './terminal/announcer.js';
export {
  startDevice,
  deviceOptionsSchema,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
} from './device/device.js';
export type { DeviceHandle, DeviceOptions, DevicePush, DeviceState } from './device/device.js';
export { photoLimitsSchema, photoRefusal } from './device/photo-limits.js';
export type { PhotoLimits, PhotoRefusal } from './device/photo-limits.js';
export type { EmitInput, EmitResult } from './device/events.js';
export type { ConnectionChange } from './device/control.js';
export { encodeBlockJpeg, placeholderSnapshot } from './device/snapshot.js';
export { faultsSchema, differentCentralUrl } from './http/faults.js';
export type { Faults } from './http/faults.js';
export type { CallResult } from './http/outbound.js';
export { resolveDeps, systemClock } from './deps.js';
export type { Cancel, Clock, FetchLike, SimDeps, SimEvent } from './deps.js';
export type { DatagramSocket, Endpoint, OpenUdpSocket, UdpOptions } from './infra/udp.js';
export type { HttpListener, ListenHttp, RequestHandler } from './infra/http-listener.js';
