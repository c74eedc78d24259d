import { Op } from 'sequelize';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { periodicJob } from '../../platform/jobs/periodic.js';
import type { Job } from '../../platform/jobs/registry.js';

/**
 * The global setting of earlier releases: still the default of an organization that never
 * chose its own, so an upgrade keeps what was set. Nothing writes it any more.
 */
export const RETENTION_SETTING = 'recognition_retention_days';
export const DEFAULT_RETENTION_DAYS = 90;
const DAY_MS = 24 * 60 * 60_000;
const BATCH = 500;

const days = z.number().int().min(1).max(3650);

async function defaultRetentionDays(ctx: Pick<AppContext, 'settings'>): Promise<number> {
  return (await ctx.settings.get(RETENTION_SETTING, days)) ?? DEFAULT_RETENTION_DAYS;
}

/** Days one organization's recognition events (and their snapshots) are kept. */
export async function retentionDays(
  ctx: Pick<AppContext, 'settings' | 'models'>,
  organizationId: string,
): Promise<number> {
  const org = await ctx.models.Organization.findByPk(organizationId, {
    attributes: ['id', 'eventRetentionDays'],
  });
  return org?.eventRetentionDays ?? (await defaultRetentionDays(ctx));
}

/**
 * Deletes events whose time is older than their own organization's retention period,
 * organization by organization (the (organization_id, time) index serves each), and releases
 * snapshots nothing else uses. One organization's setting never reaches another's events.
 */
export async function purgeOldEvents(ctx: AppContext): Promise<number> {
  const { models, clock } = ctx;
  const fallback = await defaultRetentionDays(ctx);
  const organizations = await models.Organization.findAll({
    attributes: ['id', 'eventRetentionDays'],
  });
  let removed = 0;
  for (const { id: organizationId, eventRetentionDays } of organizations) {
    const keep = eventRetentionDays ?? fallback;
    const cutoff = new Date(clock.now().getTime() - keep * DAY_MS);
    const before = removed;
    for (;;) {
      const rows = await models.RecognitionEvent.findAll({
        where: { organizationId, time: { [Op.lt]: cutoff } },
        attributes: ['id', 'snapshotSha256'],
        limit: BATCH,
      });
      if (rows.length === 0) break;
      removed += await models.RecognitionEvent.destroy({
        where: { id: rows.map((r) => r.id) },
      });
      const files = new Set(rows.flatMap((r) => r.snapshotSha256 ?? []));
      for (const sha256 of files) await ctx.photos.releaseIfUnreferenced(sha256);
      if (rows.length < BATCH) break;
    }
    if (removed > before) {
      ctx.logger.info(
        { organizationId, removed: removed - before, cutoff },
        'old recognition events purged',
      );
    }
  }
  return removed;
}

/**
 * The daily purge (server.ts registers it). It looks every hour and purges when a day has
 * passed since its last purge, so a service restarted every night still purges.
 */
export function retentionJob(ctx: AppContext): Job {
  let last: number | undefined;
  return periodicJob({
    name: 'recognition-retention',
    everyMs: 60 * 60_000,
    logger: ctx.logger,
    run: async () => {
      const now = ctx.clock.now().getTime();
      if (last !== undefined && now - last < DAY_MS) return;
      await purgeOldEvents(ctx);
      last = now;
    },
  });
}
