import { openNodeUdpSocket as openSocket, type DatagramSocket } from '@svc/shared/udp';

export type { DatagramSocket, Endpoint } from '@svc/shared/udp';

export type OpenSocket = () => DatagramSocket;

/**
 * The console's socket: SO_REUSEADDR, so the console and a central service on the same laptop can
 * both listen on the discovery port (both receive broadcasts).
 */
export const openNodeUdpSocket: OpenSocket = () => openSocket({ reuseAddr: true });
