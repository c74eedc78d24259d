import { Op, type Sequelize } from 'sequelize';
import { z } from 'zod';
import type { AuditEntry, AuditLog } from '../../audit/audit.js';
import type { Clock } from '../../platform/clock.js';
import type { AdministratorRow, Models } from '../../platform/db/models.js';
import type { DeviceKeyVault } from '../../devices/key-vault.js';
import type { RuntimeSettings } from '../../settings/runtime-settings.js';
import type { SessionService } from '../sessions.js';
import {
  enrolment,
  hashRecoveryCode,
  looksLikeRecoveryCode,
  matchingStep,
  newRecoveryCodes,
  newSecret,
} from './codes.js';

/** Runtime setting: every administrator must sign in with a second factor. */
export const TWO_FACTOR_REQUIRED_SETTING = 'two_factor_required';
/** Another server process's change of the requirement is seen within this long. */
const REQUIRED_CACHE_MS = 2_000;

export interface TwoFactorDeps {
  sequelize: Sequelize;
  models: Models;
  clock: Clock;
  audit: AuditLog;
  sessions: SessionService;
  vault: Pick<DeviceKeyVault, 'sealText' | 'openText'>;
  settings: RuntimeSettings;
}

type Actor = Pick<AuditEntry, 'actor' | 'ip'>;
export type CodeCheck = 'totp' | 'recovery' | 'invalid';

const label = (administratorId: string) => `totp secret ${administratorId}`;

/**
 * TOTP (RFC 6238) sign-in for administrators: enrolment (a sealed secret, enabled by a first
 * correct code), ten one-time recovery codes kept hashed, the superadmins' requirement, and
 * the reset. Every step is audited in the administrator's organization.
 */
export class TwoFactor {
  constructor(private readonly deps: TwoFactorDeps) {}

  /** Read on every session request: kept for a moment rather than read each time. */
  private requiredCache: { value: boolean; at: number } | undefined;

  async required(): Promise<boolean> {
    const now = Date.now();
    if (this.requiredCache && now - this.requiredCache.at < REQUIRED_CACHE_MS) {
      return this.requiredCache.value;
    }
    const value = (await this.deps.settings.get(TWO_FACTOR_REQUIRED_SETTING, z.boolean())) ?? false;
    this.requiredCache = { value, at: now };
    return value;
  }

  async setRequired(required: boolean, admin: AdministratorRow, actor: Actor): Promise<void> {
    await this.deps.settings.set(TWO_FACTOR_REQUIRED_SETTING, required);
    this.requiredCache = { value: required, at: Date.now() };
    await this.deps.audit.record({
      action: 'auth.two_factor_requirement',
      organizationId: admin.organizationId,
      target: { type: 'setting', id: TWO_FACTOR_REQUIRED_SETTING },
      summary: required
        ? 'two-factor sign-in required for every administrator'
        : 'two-factor sign-in no longer required',
      message: { code: 'two_factor_requirement', params: { required: String(required) } },
      ...actor,
    });
  }

  async enabled(administratorId: string): Promise<boolean> {
    const row = await this.deps.models.AdministratorTotp.findByPk(administratorId);
    return !!row?.enabledAt;
  }

  async status(administratorId: string) {
    const row = await this.deps.models.AdministratorTotp.findByPk(administratorId);
    const recoveryCodesLeft = row?.enabledAt
      ? await this.deps.models.RecoveryCode.count({
          where: { administratorId, usedAt: { [Op.is]: null } },
        })
      : 0;
    return {
      enabled: !!row?.enabledAt,
      pending: !!row && !row.enabledAt,
      recoveryCodesLeft,
      required: await this.required(),
    };
  }

  /** A new secret, not in force until confirmed with a code; replaces an unconfirmed one. */
  async begin(admin: AdministratorRow, actor: Actor) {
    const { models, clock, vault } = this.deps;
    const existing = await models.AdministratorTotp.findByPk(admin.id);
    if (existing?.enabledAt) return { kind: 'already_enabled' as const };
    const secret = newSecret();
    const secretSealed = await vault.sealText(label(admin.id), secret);
    await models.AdministratorTotp.destroy({ where: { administratorId: admin.id } });
    await models.AdministratorTotp.create({
      administratorId: admin.id,
      secretSealed,
      enabledAt: null,
      lastStep: null,
      createdAt: clock.now(),
    });
    await this.record(admin, actor, 'auth.two_factor_setup', 'two-factor enrolment started', {
      code: 'two_factor_setup_started',
      params: {},
    });
    return { kind: 'ok' as const, secret, ...(await enrolment(secret, admin.username)) };
  }

  /** The first correct code turns the enrolment on and returns the ten recovery codes. */
  async confirm(admin: AdministratorRow, code: string, actor: Actor) {
    const { models, clock, sequelize } = this.deps;
    const row = await models.AdministratorTotp.findByPk(admin.id);
    if (!row || row.enabledAt) return { kind: 'no_enrolment' as const };
    const secret = await this.deps.vault.openText(label(admin.id), row.secretSealed);
    const step = matchingStep(secret, code, clock.now().getTime());
    if (step === null) {
      await this.record(
        admin,
        actor,
        'auth.two_factor_enable',
        'wrong code',
        { code: 'two_factor_enable_wrong_code', params: {} },
        'failure',
      );
      return { kind: 'invalid' as const };
    }
    const codes = newRecoveryCodes();
    await sequelize.transaction(async (transaction) => {
      await row.update({ enabledAt: clock.now(), lastStep: step }, { transaction });
      await models.RecoveryCode.destroy({ where: { administratorId: admin.id }, transaction });
      await models.RecoveryCode.bulkCreate(
        codes.map((c) => ({
          administratorId: admin.id,
          codeHash: hashRecoveryCode(c),
          usedAt: null,
          createdAt: clock.now(),
        })),
        { transaction },
      );
    });
    await this.record(
      admin,
      actor,
      'auth.two_factor_enable',
      `two-factor sign-in enabled; ${codes.length} recovery codes issued`,
      { code: 'two_factor_enabled', params: { codes: codes.length } },
    );
    return { kind: 'ok' as const, recoveryCodes: codes };
  }

  /**
   * Checks a sign-in code: a TOTP code of a step newer than the last one accepted (a code
   * is never good twice), or an unused recovery code (then used up). Each write is one
   * conditional update, so two sign-ins with the same code cannot both pass.
   */
  async check(admin: AdministratorRow, code: string): Promise<CodeCheck> {
    const { models, clock } = this.deps;
    const row = await models.AdministratorTotp.findByPk(admin.id);
    if (!row?.enabledAt) return 'invalid';
    if (looksLikeRecoveryCode(code)) {
      const [used] = await models.RecoveryCode.update(
        { usedAt: clock.now() },
        {
          where: {
            administratorId: admin.id,
            codeHash: hashRecoveryCode(code),
            usedAt: { [Op.is]: null },
          },
        },
      );
      return used === 1 ? 'recovery' : 'invalid';
    }
    const secret = await this.deps.vault.openText(label(admin.id), row.secretSealed);
    const step = matchingStep(secret, code, clock.now().getTime());
    if (step === null) return 'invalid';
    const [taken] = await models.AdministratorTotp.update(
      { lastStep: step },
      {
        where: {
          administratorId: admin.id,
          [Op.or]: [{ lastStep: { [Op.is]: null } }, { lastStep: { [Op.lt]: step } }],
        },
      },
    );
    return taken === 1 ? 'totp' : 'invalid';
  }

  async recoveryCodesLeft(administratorId: string): Promise<number> {
    return this.deps.models.RecoveryCode.count({
      where: { administratorId, usedAt: { [Op.is]: null } },
    });
  }

  /**
   * Removes the second factor (a lost phone): a superadmin or `svc-admin reset-2fa`. The
   * account's sessions end; with the requirement on, the next sign-in enrolls again.
   */
  async reset(admin: AdministratorRow, actor: Actor): Promise<boolean> {
    const { models, sequelize, sessions } = this.deps;
    const had = await sequelize.transaction(async (transaction) => {
      const removed = await models.AdministratorTotp.destroy({
        where: { administratorId: admin.id },
        transaction,
      });
      await models.RecoveryCode.destroy({ where: { administratorId: admin.id }, transaction });
      await sessions.destroyAllFor(admin.id, transaction);
      return removed > 0;
    });
    await this.record(
      admin,
      actor,
      'auth.two_factor_reset',
      `two-factor sign-in of ${admin.username} reset; sessions ended`,
      { code: 'two_factor_reset', params: { username: admin.username } },
    );
    return had;
  }

  private async record(
    admin: AdministratorRow,
    actor: Actor,
    action: string,
    summary: string,
    message: NonNullable<AuditEntry['message']>,
    outcome: AuditEntry['outcome'] = 'success',
  ): Promise<void> {
    await this.deps.audit.record({
      action,
      outcome,
      organizationId: admin.organizationId,
      target: { type: 'administrator', id: admin.id },
      summary,
      message,
      ...actor,
    });
  }
}
