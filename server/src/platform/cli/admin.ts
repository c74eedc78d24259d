#!/usr/bin/env node
import { loadConfig, ConfigError } from '../config/config.js';
import { createLogger } from '../logger.js';
import { buildContext } from '../server.js';
import { systemClock } from '../clock.js';
import { classifyDbError } from '../db/errors.js';
import { createMigrator } from '../db/migrate.js';
import { normalizeUsername } from '../../auth/accounts.js';

const USAGE = `Usage: svc-admin <command> <username>

Operator commands, run on the server host (or in its container:
  docker compose exec svc_server svc-admin reset-password admin).

  reset-password <username>  New random password written to a file readable only by its
                             owner in DATA_DIR; forces a change at next sign-in; ends the
                             account's sessions and clears a sign-in lockout.
  unlock <username>          Clears a sign-in lockout after repeated failed attempts.
  reset-2fa <username>       Removes the account's two-factor sign-in (a lost phone) and its
                             recovery codes; ends its sessions. With two-factor sign-in
                             required, the next sign-in sets it up again.

The data volume is never cleared to repair a login.`;

async function main(argv: string[]): Promise<number> {
  const [command, username] = argv;
  if (!command || command === '--help' || command === '-h' || !username) {
    process.stdout.write(`${USAGE}\n`);
    return command === '--help' || command === '-h' ? 0 : 64;
  }
  if (command !== 'reset-password' && command !== 'unlock' && command !== 'reset-2fa') {
    process.stderr.write(`svc-admin: unknown command "${command}"\n${USAGE}\n`);
    return 64;
  }
  const config = loadConfig();
  const logger = createLogger('silent');
  const { ctx } = buildContext(config, logger, systemClock);
  try {
    await ctx.db.sequelize.authenticate();
    const pending = await createMigrator(ctx.db.sequelize).pending();
    if (pending.length > 0) {
      process.stderr.write('svc-admin: the database is not initialized; start svc_server first\n');
      return 69;
    }
    if (command === 'reset-password') {
      const file = await ctx.accounts.resetPassword(username, 'operator command');
      process.stdout.write(
        `The new password of "${username.toLowerCase()}" is in ${file} (readable only by its owner).\n` +
          'It must be changed at the next sign-in. Sessions ended; lockout cleared.\n',
      );
    } else if (command === 'reset-2fa') {
      const name = normalizeUsername(username);
      const admin = await ctx.models.Administrator.findOne({ where: { username: name } });
      if (!admin) throw new Error(`no administrator named "${name}"`);
      const had = await ctx.twoFactor.reset(admin, {
        actor: { id: null, name: 'operator command' },
      });
      process.stdout.write(
        had
          ? `Two-factor sign-in of "${name}" removed; sessions ended. Sign in with the password alone (or set it up again).\n`
          : `"${name}" had no two-factor sign-in; sessions ended.\n`,
      );
    } else {
      await ctx.accounts.unlock(username, { id: null, name: 'operator command' });
      process.stdout.write(`Sign-in lockout of "${username.toLowerCase()}" cleared.\n`);
    }
    return 0;
  } catch (err) {
    const kind = classifyDbError(err);
    const reason =
      kind === 'access_denied'
        ? 'the database refused the credentials (DB_PASSWORD / DB_ROOT_PASSWORD)'
        : kind === 'unreachable'
          ? 'the database is not reachable'
          : (err as Error).message;
    process.stderr.write(`svc-admin: ${reason}\n`);
    return 1;
  } finally {
    await ctx.db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message =
      err instanceof ConfigError ? `invalid configuration: ${err.message}` : String(err);
    process.stderr.write(`svc-admin: ${message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
