import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  SEEDED_ADMIN_DISPLAY_NAME,
  SEEDED_ADMIN_USERNAME,
  SEEDED_ORGANIZATION_NAME,
  panelRoute,
} from '@svc/shared';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/database.js';
import type { Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { AuditLog } from '../audit/audit.js';
import { migrate, withSchemaLock } from '../platform/db/migrate.js';
import { SettingKey, type RuntimeSettings } from '../settings/runtime-settings.js';
import { generatePassword, hashPassword } from '../auth/passwords.js';
import { INITIAL_PASSWORD_FILE, writeSecretFile } from '../auth/accounts.js';

export interface InitDeps {
  config: Config;
  db: Database;
  models: Models;
  settings: RuntimeSettings;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  version: string;
}

export interface InitResult {
  migrationsApplied: string[];
  seeded: boolean;
  /** Where the seeded administrator's random password was written (first start only). */
  passwordFile?: string;
}

/**
 * Brings the database to this release: pending migrations always; the initial configuration
 * exactly once, on an empty database (the seed's "Data volume" state table). An initialized
 * database is never seeded again, whatever the environment says now.
 */
export async function prepareDatabase(deps: InitDeps): Promise<InitResult> {
  const { db, logger } = deps;
  let waited = false;
  const onWait = (holder: string) => {
    if (!waited) logger.info({ holder }, 'another server process is migrating; waiting for it');
    waited = true;
  };
  return withSchemaLock(
    db.sequelize,
    async () => {
      const migrationsApplied = await migrate(db.sequelize, logger);
      const result = await seedOnce(deps);
      await deps.settings.setIfAbsent(SettingKey.csrfSecret, randomBytes(32).toString('base64'));
      return { migrationsApplied, ...result };
    },
    { onWait },
  );
}

async function seedOnce(deps: InitDeps): Promise<Omit<InitResult, 'migrationsApplied'>> {
  const { config, db, models, settings, audit, clock, logger, version } = deps;
  const initialized = await settings.get(SettingKey.initializedAt, z.string());
  if (initialized) {
    logger.info({ initializedAt: initialized }, 'database already initialized; not seeding');
    return { seeded: false };
  }

  const fromEnv = config.adminInitialPassword;
  const password = fromEnv ?? generatePassword();
  const passwordHash = await hashPassword(password);
  const file = path.join(config.dataDir, INITIAL_PASSWORD_FILE);
  if (!fromEnv) {
    await rm(file, { force: true });
    await writeSecretFile(file, password);
  }

  try {
    await db.sequelize.transaction(async (transaction) => {
      // Checked again inside the transaction: a second process may have just finished.
      const [, won] = await models.RuntimeSetting.findOrCreate({
        where: { key: SettingKey.initializedAt },
        defaults: {
          key: SettingKey.initializedAt,
          value: JSON.stringify(clock.now().toISOString()),
          updatedAt: clock.now(),
        },
        transaction,
      });
      if (!won) throw new AlreadySeeded();
      const now = clock.now();
      const organization = await models.Organization.create(
        { id: randomUUID(), name: SEEDED_ORGANIZATION_NAME, createdAt: now, updatedAt: now },
        { transaction },
      );
      const admin = await models.Administrator.create(
        {
          id: randomUUID(),
          organizationId: organization.id,
          username: SEEDED_ADMIN_USERNAME,
          displayName: SEEDED_ADMIN_DISPLAY_NAME,
          role: 'superadmin',
          passwordHash,
          mustChangePassword: true,
          disabled: false,
          passwordChangedAt: null,
          lastLoginAt: null,
          createdAt: now,
          updatedAt: now,
        },
        { transaction },
      );
      await settings.set(SettingKey.release, version, transaction);
      await settings.set(
        SettingKey.panelRoute,
        panelRoute.parse({ mode: 'local', url: config.panelUrl }),
        transaction,
      );
      await audit.record(
        {
          action: 'system.initialize',
          organizationId: organization.id,
          actor: { id: null, name: 'system' },
          target: { type: 'administrator', id: admin.id },
          summary: `initialized release ${version}: organization, seeded administrator, runtime settings`,
          message: { code: 'system_initialized', params: { version } },
        },
        transaction,
      );
    });
  } catch (err) {
    if (!fromEnv) await rm(file, { force: true });
    if (err instanceof AlreadySeeded) return { seeded: false };
    throw err;
  }

  if (fromEnv) {
    logger.info('first start: seeded administrator "admin" with ADMIN_INITIAL_PASSWORD');
    return { seeded: true };
  }
  logger.info(
    { passwordFile: file },
    `first start: seeded administrator "admin"; its initial password is in ${file} (readable only by its owner); it must be changed at first sign-in`,
  );
  return { seeded: true, passwordFile: file };
}

class AlreadySeeded extends Error {}
