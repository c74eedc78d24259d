import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { SERVICE_NAME, type SessionUser } from '@svc/shared';
import type { AdministratorRow, Models } from '../db/models.js';
import type { Clock } from '../clock.js';
import type { AuditLog } from '../audit/audit.js';
import type { SessionService } from './sessions.js';
import type { LoginClient, LoginThrottle } from './lockout/throttle.js';
import {
  burnVerification,
  generatePassword,
  hashPassword,
  passwordProblem,
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
  | { kind: 'rate_limited'; retryAfterS: number };

interface Client extends LoginClient {
  userAgent?: string | undefined;
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
  dataDir: string;
}

/** Sign-in, password changes and the operator's reset and unlock. */
export class Accounts {
  constructor(private readonly deps: AccountsDeps) {}

  /**
   * Signs in. The attempt is counted before the password is checked (lockout/throttle.ts), by
   * the client's device cookie when it holds one for this account, else by username and address.
   */
  async login(usernameRaw: string, password: string, client: Client): Promise<LoginResult> {
    const { models, throttle, audit, sessions, clock } = this.deps;
    const username = normalizeUsername(usernameRaw);
    const reservation = await throttle.reserve(username, client);
    const where = client.device ? ' from this device' : '';
    if (reservation.kind === 'limited') {
      await audit.record({
        action: 'auth.login',
        outcome: 'rate_limited',
        actor: { id: null, name: username },
        ip: client.ip,
        summary: `sign-in refused${where} for ${reservation.retryAfterS} s after repeated failures`,
      });
      return { kind: 'rate_limited', retryAfterS: reservation.retryAfterS };
    }
    const admin = await models.Administrator.findOne({ where: { username } });
    const ok =
      admin && !admin.disabled
        ? await verifyPassword(admin.passwordHash, password)
        : (await burnVerification(password), false);
    if (!admin || !ok) {
      await audit.record({
        action: 'auth.login',
        outcome: 'failure',
        organizationId: admin?.organizationId ?? null,
        actor: { id: admin?.id ?? null, name: username },
        ip: client.ip,
        summary: admin?.disabled ? 'disabled account' : `wrong username or password${where}`,
      });
      return { kind: 'invalid' };
    }
    await throttle.succeeded(reservation.attempt);
    const token = await sessions.create(admin.id, client);
    await admin.update({ lastLoginAt: clock.now() });
    await audit.record({
      action: 'auth.login',
      organizationId: admin.organizationId,
      actor: { id: admin.id, name: admin.username },
      ip: client.ip,
      summary: admin.mustChangePassword ? 'signed in; password change required' : 'signed in',
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
    { kind: 'ok'; token: string } | { kind: 'wrong_current' } | { kind: 'weak'; message: string }
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
      });
      return { kind: 'wrong_current' };
    }
    const problem =
      newPassword === currentPassword
        ? 'The new password must differ from the current one.'
        : passwordProblem(newPassword, [admin.username, SERVICE_NAME]);
    if (problem) return { kind: 'weak', message: problem };
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
