import { z } from 'zod';
import type { AppContext } from '../context.js';
import { clientIp } from '../auth/middleware.js';
import type { Api } from '../http/api.js';

/** What the console sends when an acceptance ends: the digest of the handover report. */
export const acceptanceReportRecord = z
  .object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
    /** e.g. "Acceptance of site North gate"; shown in the audit log. */
    title: z.string().trim().min(1).max(200),
    layers: z.number().int().min(0).max(64),
    passed: z.number().int().min(0).max(64),
  })
  .refine((b) => b.passed <= b.layers, { path: ['passed'], message: 'more than layers' });

/**
 * `POST /api/acceptance/reports`: the desktop console records a handover report's SHA-256 in
 * the audit log, so anyone can later check a report file against the central record. Only the
 * digest and counts are kept: the report itself stays with the technician.
 */
export function registerAcceptanceRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/acceptance/reports',
      summary: "Record a handover report's SHA-256 digest in the audit log",
      tags: ['acceptance'],
      access: { kind: 'session', minRole: 'admin' },
      body: acceptanceReportRecord,
      responses: { 201: z.object({ recorded: z.literal(true), at: z.string() }) },
      bodyLimit: '4kb',
    },
    async ({ body }, req, res) => {
      const admin = req.auth!.admin;
      const at = ctx.clock.now();
      await ctx.audit.record({
        action: 'acceptance.report',
        organizationId: admin.organizationId,
        actor: { id: admin.id, name: admin.username },
        target: { type: 'acceptance_report', id: body.sha256 },
        ip: clientIp(req),
        summary: `${body.title}: ${body.passed}/${body.layers} layers passed; report sha256 ${body.sha256}`,
      });
      res.status(201).json({ recorded: true, at: at.toISOString() });
    },
  );
}
