import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { SERVICE_NAME, isLocale, type Message, type SessionUser } from '@svc/shared';
import type { AdministratorRow, Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';
import type { AuditLog } from '../audit/audit.js';
import type { SessionService } from './sessions.js';
import type { LoginClient, LoginThrottle } from './lockout/throttle.js';
import type { TwoFactor } from './two-factor/service.js';
import {
  burnVerification,
  generatePassword,
  hashPassword,
  passwordProblemMessage,
  verifyPassword,
} from './passwords.js';

export const INITIAL_PASSWORD_FILE = 'initial-admin-password.txt';
export const resetPasswordFile = (username: string) => `password-reset-${username}.txt`;

export function toSessionUser(admin: AdministratorRow): SessionUser {
  return {
    id: admin.id,
    username: admin.username,
    displayName: admin.displayName,
    role: admin.role,
    organizationId: admin.organizationId,
    mustChangePassword: admin.mustChangePassword,
    language: isLocale(admin.language) ? admin.language : null,
  };
}

/** Writes a secret to a new file readable only by its owner, atomically. */
export async function writeSecretFile(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${content}\n`, 'utf8');
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
}

export type LoginResult =
  | { kind: 'ok'; admin: AdministratorRow; token: string }
  | { kind: 'invalid' }
  | { kind: 'rate_limited'; retryAfterS: number }
  /** The password was right; the account's second factor is needed (missing or wrong). */
  | { kind: 'two_factor_required' }
  | { kind: 'two_factor_invalid' };

interface Client extends LoginClient {
  userAgent?: string | undefined;
  /** A keyed pseudonym of an unknown username (lockout/device-cookie.ts), to count it by. */
  pseudonym?: ((username: string) => string) | undefined;
}

/**
 * How an unknown username is kept (audit log, lockout counts): people often type their password
 * into the username field, so never the text itself, only its first character (from 4 on), its
 * length and a keyed pseudonym that tells repeated attempts apart: `s…(12)#Ab3dE…`.
 */
export function maskUnknownUsername(username: string, pseudonym?: (name: string) => string) {
  const chars = [...username];
  const head = chars.length >= 4 ? chars[0] : '';
  return `${head}…(${chars.length})${pseudonym ? `#${pseudonym(username)}` : ''}`;
}

/** Usernames are compared trimmed and in lower case. */
export const normalizeUsername = (raw: string) => raw.trim().toLowerCase();

export interface AccountsDeps {
  sequelize: Sequelize;
  models: Models;
  clock: Clock;
  audit: AuditLog;
  sessions: SessionService;
  throttle: LoginThrottle;
  twoFactor: TwoFactor;
  dataDir: string;
}

/** Sign-in, password changes and the operator's reset and unlock. */
export class Accounts {
  constructor(private readonly deps: AccountsDeps) {}

  /**
   * Signs in. The attempt is counted before the password is checked (lockout/throttle.ts), by
   * the client's device cookie when it holds one for this account, else by username and address.
   * An account with two-factor sign-in needs a code too; and while its password guesses are
   * locked out, a correct password with a correct code still gets in (docs/security.md).
   */
  async login(
    usernameRaw: string,
    password: string,
    client: Client,
    code?: string,
  ): Promise<LoginResult> {
    const { models, throttle, audit } = this.deps;
    const typed = normalizeUsername(usernameRaw);
    // An unknown name is counted and audited masked: it may be a password typed in the wrong field.
    const known = await models.Administrator.findOne({ where: { username: typed } });
    const username = known ? typed : maskUnknownUsername(typed, client.pseudonym);
    const reservation = await throttle.reserve(username, client);
    const where = client.device ? ' from this device' : '';
    if (reservation.kind === 'limited') {
      // The owner's way through: only with a code, and the answer to anything less is the
      // same 429, so the lockout still hides whether a guessed password was right.
      if (code !== undefined) {
        const admin = await this.checkPassword(typed, password);
        if (admin && (await this.deps.twoFactor.enabled(admin.id))) {
          const second = await this.secondFactor(admin, code, client);
          if (second.kind === 'ok') return this.signedIn(admin, client, second.via, true);
        }
      }
      await audit.record({
        action: 'auth.login',
        outcome: 'rate_limited',
        actor: { id: null, name: username },
        ip: client.ip,
        summary: `sign-in refused${where} for ${reservation.retryAfterS} s after repeated failures`,
        message: {
          code: 'sign_in_locked_out',
          params: { retryAfterS: reservation.retryAfterS, device: String(Boolean(client.device)) },
        },
      });
      return { kind: 'rate_limited', retryAfterS: reservation.retryAfterS };
    }
    const admin = await this.checkPassword(typed, password);
    if (!admin) {
      const row = known;
      await audit.record({
        action: 'auth.login',
        outcome: 'failure',
        organizationId: row?.organizationId ?? null,
        actor: { id: row?.id ?? null, name: username },
        ip: client.ip,
        summary: row?.disabled ? 'disabled account' : `wrong username or password${where}`,
        message: row?.disabled
          ? { code: 'sign_in_disabled', params: {} }
          : { code: 'sign_in_failed', params: { device: String(Boolean(client.device)) } },
      });
      return { kind: 'invalid' };
    }
    await throttle.succeeded(reservation.attempt);
    if (await this.deps.twoFactor.enabled(admin.id)) {
      if (code === undefined) return { kind: 'two_factor_required' };
      const second = await this.secondFactor(admin, code, client);
      if (second.kind !== 'ok') return second;
      return this.signedIn(admin, client, second.via, false);
    }
    return this.signedIn(admin, client, 'password', false);
  }

  /** The account when the password is right (and the account enabled), else null. */
  private async checkPassword(username: string, password: string) {
    const admin = await this.deps.models.Administrator.findOne({ where: { username } });
    const ok =
      admin && !admin.disabled
        ? await verifyPassword(admin.passwordHash, password)
        : (await burnVerification(password), false);
    return ok ? admin : null;
  }

  /** A code after a correct password, counted on its own limit before it is checked. */
  private async secondFactor(
    admin: AdministratorRow,
    code: string,
    client: Client,
  ): Promise<
    | { kind: 'ok'; via: 'totp' | 'recovery' }
    | { kind: 'two_factor_invalid' }
    | { kind: 'rate_limited'; retryAfterS: number }
  > {
    const { throttle, audit, twoFactor } = this.deps;
    const reserved = await throttle.reserveCode(admin.username);
    const actor = { id: admin.id, name: admin.username };
    if (reserved.kind === 'limited') {
      await audit.record({
        action: 'auth.two_factor',
        outcome: 'rate_limited',
        organizationId: admin.organizationId,
        actor,
        ip: client.ip,
        summary: `two-factor code refused for ${reserved.retryAfterS} s after repeated wrong codes`,
        message: {
          code: 'two_factor_locked_out',
          params: { retryAfterS: reserved.retryAfterS },
        },
      });
      return { kind: 'rate_limited', retryAfterS: reserved.retryAfterS };
    }
    const via = await twoFactor.check(admin, code);
    if (via === 'invalid') {
      await audit.record({
        action: 'auth.two_factor',
        outcome: 'failure',
        organizationId: admin.organizationId,
        actor,
        ip: client.ip,
        summary: 'correct password, wrong or used two-factor code',
        message: { code: 'two_factor_wrong', params: {} },
      });
      return { kind: 'two_factor_invalid' };
    }
    await throttle.codeSucceeded(reserved.attempt);
    if (via === 'recovery') {
      const left = await twoFactor.recoveryCodesLeft(admin.id);
      await audit.record({
        action: 'auth.two_factor_recovery_code',
        organizationId: admin.organizationId,
        actor,
        ip: client.ip,
        summary: `recovery code used; ${left} left`,
        message: { code: 'recovery_code_used', params: { left } },
      });
    }
    return { kind: 'ok', via };
  }

  private async signedIn(
    admin: AdministratorRow,
    client: Client,
    via: 'password' | 'totp' | 'recovery',
    duringLockout: boolean,
  ): Promise<LoginResult> {
    const { sessions, clock, audit } = this.deps;
    const token = await sessions.create(admin.id, client);
    await admin.update({ lastLoginAt: clock.now() });
    const how =
      via === 'password'
        ? ''
        : ` with ${via === 'totp' ? 'an authenticator code' : 'a recovery code'}`;
    await audit.record({
      action: 'auth.login',
      organizationId: admin.organizationId,
      actor: { id: admin.id, name: admin.username },
      ip: client.ip,
      summary: `signed in${how}${duringLockout ? ' while password guesses were locked out' : ''}${admin.mustChangePassword ? '; password change required' : ''}`,
      message: {
        code: 'signed_in',
        params: {
          via,
          duringLockout: String(duringLockout),
          mustChange: String(admin.mustChangePassword),
        },
      },
    });
    return { kind: 'ok', admin, token };
  }

  /**
   * Changes the signed-in administrator's password. Ends every session of theirs and returns
   * a fresh one for this client, so a stolen cookie dies with the old password.
   */
  async changePassword(
    admin: AdministratorRow,
    currentPassword: string,
    newPassword: string,
    client: Client,
  ): Promise<
    { kind: 'ok'; token: string } | { kind: 'wrong_current' } | { kind: 'weak'; problem: Message }
  > {
    const { sequelize, audit, sessions, clock } = this.deps;
    if (!(await verifyPassword(admin.passwordHash, currentPassword))) {
      await audit.record({
        action: 'auth.password_change',
        outcome: 'failure',
        organizationId: admin.organizationId,
        actor: { id: admin.id, name: admin.username },
        ip: client.ip,
        summary: 'current password wrong',
        message: { code: 'current_password_wrong', params: {} },
      });
      return { kind: 'wrong_current' };
    }
    const problem: Message | undefined =
      newPassword === currentPassword
        ? { code: 'password_same' }
        : passwordProblemMessage(newPassword, [admin.username, SERVICE_NAME]);
    if (problem) return { kind: 'weak', problem };
    const passwordHash = await hashPassword(newPassword);
    const token = await sequelize.transaction(async (transaction) => {
      await admin.update(
        {
          passwordHash,
          mustChangePassword: false,
          passwordChangedAt: clock.now(),
          updatedAt: clock.now(),
        },
        { transaction },
      );
      await sessions.destroyAllFor(admin.id, transaction);
      await audit.record(
        {
          action: 'auth.password_change',
          organizationId: admin.organizationId,
          actor: { id: admin.id, name: admin.username },
          target: { type: 'administrator', id: admin.id },
          ip: client.ip,
          summary: 'password changed; other sessions ended',
          message: { code: 'password_changed', params: {} },
        },
        transaction,
      );
      return sessions.create(admin.id, client, transaction);
    });
    await this.removePasswordFiles(admin.username);
    return { kind: 'ok', token };
  }

  /**
   * Operator command: a new random password in a 0600 file, a forced change at next sign-in,
   * every session ended and the lockout cleared. Returns the file's path.
   */
  async resetPassword(usernameRaw: string, actor: string): Promise<string> {
    const { sequelize, models, audit, sessions, throttle, clock, dataDir } = this.deps;
    const username = normalizeUsername(usernameRaw);
    const admin = await models.Administrator.findOne({ where: { username } });
    if (!admin) throw new Error(`no administrator named "${username}"`);
    const password = generatePassword();
    const file = path.join(dataDir, resetPasswordFile(admin.username));
    await rm(file, { force: true });
    await writeSecretFile(file, password);
    const passwordHash = await hashPassword(password);
    await sequelize.transaction(async (transaction) => {
      await admin.update(
        { passwordHash, mustChangePassword: true, disabled: false, updatedAt: clock.now() },
        { transaction },
      );
      await sessions.destroyAllFor(admin.id, transaction);
      await audit.record(
        {
          action: 'admin.password_reset',
          organizationId: admin.organizationId,
          actor: { id: null, name: actor },
          target: { type: 'administrator', id: admin.id },
          summary: `password reset by operator command for ${admin.username}; sessions ended; account unlocked`,
          message: { code: 'password_reset_by_command', params: { username: admin.username } },
        },
        transaction,
      );
    });
    await throttle.clearUser(admin.username);
    return file;
  }

  /**
   * Clears an account's lockouts (by username and by its device cookies): `svc-admin unlock`
   * (actor without id) or an administrator (DELETE /api/auth/lockouts/{username}).
   */
  async unlock(
    usernameRaw: string,
    actor: { id: string | null; name: string },
    ip?: string,
  ): Promise<number> {
    const username = normalizeUsername(usernameRaw);
    const admin = await this.deps.models.Administrator.findOne({ where: { username } });
    if (!admin) throw new Error(`no administrator named "${username}"`);
    const cleared = await this.deps.throttle.clearUser(username);
    await this.deps.audit.record({
      action: 'admin.unlock',
      organizationId: admin.organizationId,
      actor,
      target: { type: 'administrator', id: admin.id },
      ip,
      summary: `sign-in lockout cleared for ${admin.username} (${cleared} failed attempts)`,
      message: { code: 'lockout_cleared', params: { username: admin.username, attempts: cleared } },
    });
    return cleared;
  }

  /** A changed password makes the initial or reset file stale; it should not linger. */
  private async removePasswordFiles(username: string): Promise<void> {
    const files = [resetPasswordFile(username)];
    if (username === 'admin') files.push(INITIAL_PASSWORD_FILE);
    await Promise.all(files.map((f) => rm(path.join(this.deps.dataDir, f), { force: true })));
  }
}
