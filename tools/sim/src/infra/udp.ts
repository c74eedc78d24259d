import { openNodeUdpSocket as openSocket, type DatagramSocket } from '@svc/shared/udp';

export type { DatagramSocket, Endpoint } from '@svc/shared/udp';

export interface UdpOptions {
  /** SO_REUSEADDR: several listeners on one port all receive a broadcast. */
  reuseAddr: boolean;
}

export type OpenUdpSocket = (options: UdpOptions) => DatagramSocket;

/** A simulated terminal's socket: broadcast on once bound, since it announces. */
export const openNodeUdpSocket: OpenUdpSocket = (options) =>
  openSocket({ reuseAddr: options.reuseAddr, broadcast: true });
