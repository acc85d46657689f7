/**
 * Starts Lectern: configuration, database and migrations, first-start set-up, HTTP, graceful shutdown.
 */
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { prepareFirstStart } from './first-start.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const { app, db, services } = await buildApp(config);
  const say = (msg: string) => console.log(`[lectern] ${msg}`);
  const first = await prepareFirstStart(db, services, config, say);
  if (first.sample) {
    for (const b of first.sample.imported) say(`imported "${b.title}" (${b.chapters} chapters${b.warnings.length ? `, ${b.warnings.length} warnings` : ''})`);
    for (const f of first.sample.failed) say(`could not import ${f.file}: ${f.reason}`);
  }

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

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  say(`Lectern is running at http://${shownHost}:${port}/ (database: ${db.engine}, data: ${config.dataDir})`);
  if (first.demoAccount) {
    say('A demo reader account was created. Its password is shown only this once:');
    say(`  email:    ${first.demoAccount.email}`);
    say(`  password: ${first.demoAccount.password}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
