#!/usr/bin/env node
import { loadConfig, ConfigError } from './config/config.js';
import { createLogger } from './logger.js';
import { startServer, FatalDatabaseError } from './server.js';
import { defaultSiteRoot } from './http/site.js';

/** svc_server entry point: validate configuration once, serve, shut down in order. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc_server: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const siteRoot = defaultSiteRoot();
  if (siteRoot === undefined)
    logger.info('web/dist is not built: serving the API only (npm start builds the site)');
  const server = await startServer({ config, logger, siteRoot });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  try {
    await server.ready;
  } catch (err) {
    if (stopping) return;
    if (err instanceof FatalDatabaseError) {
      logger.fatal(err.message);
      process.stderr.write(`svc_server: ${err.message}\n`);
    } else {
      logger.fatal({ err }, 'could not prepare the database');
    }
    await server.stop();
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`svc_server: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
