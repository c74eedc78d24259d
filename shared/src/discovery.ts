import { z } from 'zod';
import { MAX_DATAGRAM_BYTES, PROTOCOL_VERSION } from './constants.js';
import { centralUrl, nodeId, optionalHttpUrl, port, terminalKind } from './common.js';

const envelope = { svc: z.literal('discovery'), v: z.literal(PROTOCOL_VERSION) };
const shortText = z.string().max(64);

/** Terminal → broadcast (PROTOCOL §1). */
export const announceDatagram = z.object({
  ...envelope,
  type: z.literal('announce'),
  id: nodeId,
  kind: terminalKind,
  port,
  name: shortText.optional(),
  model: shortText.optional(),
  version: shortText.optional(),
  central: optionalHttpUrl.optional(),
});
export type AnnounceDatagram = z.infer<typeof announceDatagram>;

/** Central service → unicast reply to an announce (PROTOCOL §1). */
export const centralDatagram = z.object({
  ...envelope,
  type: z.literal('central'),
  url: centralUrl,
  name: shortText,
});
export type CentralDatagram = z.infer<typeof centralDatagram>;

/** Anyone → broadcast; every terminal that hears it announces at once (PROTOCOL §1). */
export const probeDatagram = z.object({ ...envelope, type: z.literal('probe') });
export type ProbeDatagram = z.infer<typeof probeDatagram>;

export const discoveryDatagram = z.discriminatedUnion('type', [
  announceDatagram,
  centralDatagram,
  probeDatagram,
]);
export type DiscoveryDatagram = z.infer<typeof discoveryDatagram>;

/** Why a datagram was dropped; listeners count drops by these reasons. */
export const DropReason = {
  oversize: 'oversize',
  notJson: 'not_json',
  notObject: 'not_object',
  wrongService: 'wrong_service',
  unknownVersion: 'unknown_version',
  unknownType: 'unknown_type',
  badField: 'bad_field',
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];

export type ParsedDatagram =
  { ok: true; datagram: DiscoveryDatagram } | { ok: false; reason: DropReason; detail?: string };

const knownTypes = new Set(['announce', 'central', 'probe']);

/** Parses one UDP payload under PROTOCOL §1; never throws. */
export function parseDatagram(payload: Uint8Array): ParsedDatagram {
  if (payload.byteLength > MAX_DATAGRAM_BYTES) return { ok: false, reason: DropReason.oversize };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    return { ok: false, reason: DropReason.notJson };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: DropReason.notObject };
  }
  const record = value as Record<string, unknown>;
  if (record.svc !== 'discovery') return { ok: false, reason: DropReason.wrongService };
  if (record.v !== PROTOCOL_VERSION) return { ok: false, reason: DropReason.unknownVersion };
  if (typeof record.type !== 'string' || !knownTypes.has(record.type)) {
    return { ok: false, reason: DropReason.unknownType };
  }
  const result = discoveryDatagram.safeParse(record);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      ok: false,
      reason: DropReason.badField,
      detail: issue ? `${issue.path.join('.')}: ${issue.message}` : undefined,
    };
  }
  return { ok: true, datagram: result.data };
}

/** Serializes a datagram; refuses to produce one the other side would drop. */
export function encodeDatagram(datagram: DiscoveryDatagram): Buffer {
  const bytes = Buffer.from(JSON.stringify(discoveryDatagram.parse(datagram)), 'utf8');
  if (bytes.byteLength > MAX_DATAGRAM_BYTES) {
    throw new RangeError(`datagram of ${bytes.byteLength} bytes exceeds ${MAX_DATAGRAM_BYTES}`);
  }
  return bytes;
}
