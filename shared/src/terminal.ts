import { z } from 'zod';
import { centralUrl, isoTime, nodeId, optionalHttpUrl, terminalKind } from './common.js';
import { panelEvent } from './panel.js';

/** `GET /api/config` on a terminal, and the answer to a saving POST (PROTOCOL §2). */
export const terminalConfig = z.object({
  id: nodeId,
  kind: terminalKind,
  centralUrl: z.union([z.literal(''), centralUrl]),
  panelUrl: optionalHttpUrl,
  updatedAt: z.union([isoTime, z.null()]),
});
export type TerminalConfig = z.infer<typeof terminalConfig>;

/** `POST /api/config` on a terminal (PROTOCOL §2); the token is never echoed back. */
export const terminalConfigUpdate = z.object({
  centralUrl,
  panelUrl: optionalHttpUrl.optional(),
  token: z.string().min(16).max(256).optional(),
});
export type TerminalConfigUpdate = z.infer<typeof terminalConfigUpdate>;

/** `GET /api/status` on a display terminal (PROTOCOL §2). */
export const displayStatus = z.object({
  id: nodeId,
  kind: terminalKind,
  centralUrl: z.union([z.literal(''), centralUrl]),
  panelUrl: optionalHttpUrl,
  lastEvent: z.union([panelEvent, z.null()]),
});
export type DisplayStatus = z.infer<typeof displayStatus>;

export const displayShown = z.object({ shown: z.literal(true) });

/** Terminal → central `POST /api/terminal/checkin` (PROTOCOL §2). */
export const terminalCheckin = z.object({ id: nodeId, kind: terminalKind });
export type TerminalCheckin = z.infer<typeof terminalCheckin>;

export const serverTimeResponse = z.object({ serverTime: isoTime });
export type ServerTimeResponse = z.infer<typeof serverTimeResponse>;
