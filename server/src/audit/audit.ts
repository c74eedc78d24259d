import type { MessageParams } from '@svc/shared';
import type { Transaction } from 'sequelize';
import type { Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';

export type AuditOutcome = 'success' | 'failure' | 'denied' | 'rate_limited';

export interface AuditEntry {
  action: string;
  outcome?: AuditOutcome;
  organizationId?: string | null;
  actor?: { id: string | null; name: string | null };
  target?: { type: string; id: string };
  ip?: string | undefined;
  /** What happened, in words. Never a password, token, key or photo. */
  summary?: string;
  /** The summary as a code and its values, for clients to word (issue 34); same rules. */
  message?: { code: string; params: MessageParams };
}

/** The audit log: every login attempt and administrator action. */
export class AuditLog {
  constructor(private readonly deps: { models: Models; clock: Clock }) {}

  async record(entry: AuditEntry, transaction?: Transaction): Promise<void> {
    await this.deps.models.Audit.create(
      {
        at: this.deps.clock.now(),
        organizationId: entry.organizationId ?? null,
        actorId: entry.actor?.id ?? null,
        actorName: entry.actor?.name?.slice(0, 64) ?? null,
        action: entry.action,
        outcome: entry.outcome ?? 'success',
        targetType: entry.target?.type ?? null,
        targetId: entry.target?.id ?? null,
        ip: entry.ip?.slice(0, 64) ?? null,
        summary: (entry.summary ?? '').slice(0, 1024),
        summaryMessage: entry.message ? JSON.stringify(entry.message) : null,
      },
      { transaction },
    );
  }
}
