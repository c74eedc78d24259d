import { z } from 'zod';
import { isoTime, optionalStoredHttpUrl } from './common.js';

/** What the central service POSTs to the panel route (PROTOCOL §4). */
export const panelEvent = z.object({
  eventId: z.string().min(1).max(64),
  time: isoTime,
  score: z.number().min(0).max(1),
  person: z.union([z.object({ id: z.string(), name: z.string() }), z.null()]),
  device: z.object({ sn: z.string(), name: z.string() }),
  space: z.union([z.object({ id: z.string(), name: z.string() }), z.null()]),
});
export type PanelEvent = z.infer<typeof panelEvent>;

/** `GET`/`POST /api/panel/route` (PROTOCOL §5). */
export const panelRoute = z.object({
  mode: z.enum(['local', 'cloud']),
  url: optionalStoredHttpUrl,
});
export type PanelRoute = z.infer<typeof panelRoute>;

/** `POST /api/panel/test`: a test event sent to the saved panel route, and what came of it. */
export const panelTestResult = z.union([
  z.object({ ok: z.literal(true), url: z.string(), ms: z.number().int().min(0) }),
  z.object({ ok: z.literal(false), url: z.string(), reason: z.string() }),
]);
export type PanelTestResult = z.infer<typeof panelTestResult>;
