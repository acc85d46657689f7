/**
 * Builds the real app for API tests on a real database: a fresh SQLite file in a temporary DATA_DIR, or a fresh
 * PostgreSQL database per app (created on the server named by TEST_DATABASE_URL, else 127.0.0.1:5432, dropped
 * afterwards). PostgreSQL being absent is a failure, never a skip.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp, type Lectern } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';

export type Engine = 'sqlite' | 'postgres';
/**
 * The engines every API test runs on: both, unless LECTERN_TEST_ENGINES names some (CI's Node 24 tier runs on SQLite
 * alone, .ci/run: PostgreSQL's driver is JavaScript, and the tier on both engines outlasted the browser suite it runs
 * beside). A name that is no engine fails the run rather than leaving tests out.
 */
export const ENGINES: Engine[] = enginesFrom(process.env.LECTERN_TEST_ENGINES);

function enginesFrom(named: string | undefined): Engine[] {
  if (!named) return ['sqlite', 'postgres'];
  const engines = named.split(',').map((e) => e.trim());
  for (const e of engines) if (e !== 'sqlite' && e !== 'postgres') throw new Error(`LECTERN_TEST_ENGINES: "${e}" is not sqlite or postgres`);
  return engines as Engine[];
}

const adminUrl = () => process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestApp {
  lectern: Lectern;
  dataDir: string;
  close(): Promise<void>;
}

/** A fresh, empty PostgreSQL database on the test server, and how to drop it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lectern_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      // The app's pool has closed its connections; FORCE only if one lingers.
      await c.query(`drop database if exists ${name}`).catch(() => c.query(`drop database if exists ${name} with (force)`));
      await c.end();
    },
  };
}

export async function startTestApp(
  engine: Engine,
  overrides: Partial<Pick<Config, 'trialDays' | 'loginRateLimit' | 'webDist' | 'imports' | 'trustProxy' | 'smtpUrl' | 'publicUrl' | 'scriptedOrigin' | 'scriptedPort' | 'heavyRequests' | 'supportEmail' | 'buyLinkTemplate' | 'newsletterDays' | 'debugMode' | 'highlightPrivacy' | 'contentStore' | 's3'>> = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-test-'));
  let databaseUrl: string | null = null;
  let dropDatabase = async () => {};
  if (engine === 'postgres') {
    const created = await createTestDatabase();
    databaseUrl = created.url;
    dropDatabase = created.drop;
  }
  const config = loadConfig({}, { dataDir, databaseUrl, logLevel: 'silent', webDist: null, secret: 'test-secret-'.padEnd(40, 'x'), ...overrides });
  const lectern = await buildApp(config);
  return {
    lectern,
    dataDir,
    async close() {
      await lectern.app.close();
      await dropDatabase();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A second server on `first`'s database, as an operator runs several: the same database (PostgreSQL: the same
 * DATABASE_URL with its own DATA_DIR; SQLite: the same DATA_DIR) and the same secret. Closing it leaves the
 * database to `first`.
 */
export async function startAnotherServer(
  first: TestApp,
  overrides: Partial<Pick<Config, 'loginRateLimit' | 'trustProxy'>> = {},
  /**
   * sameDataDir (PostgreSQL): share `first`'s DATA_DIR (its content and upload area), as servers on one shared folder do.
   * ownDataDir (SQLite): a DATA_DIR of its own all the same, its database file a link to `first`'s (SQLite keeps the
   * database in DATA_DIR; it follows the link, so both open one file with one WAL): a server that shares only the
   * database and the content store, as PostgreSQL servers with a DATA_DIR each do.
   */
  options: { sameDataDir?: boolean; ownDataDir?: boolean } = {},
): Promise<TestApp> {
  const sqlite = !first.lectern.config.databaseUrl;
  const own = (!sqlite && !options.sameDataDir) || (sqlite && options.ownDataDir) ? fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-test-')) : null;
  if (own && sqlite) fs.symlinkSync(path.join(first.dataDir, 'lectern.sqlite'), path.join(own, 'lectern.sqlite'));
  const config = loadConfig({}, { ...first.lectern.config, dataDir: own ?? first.dataDir, ...overrides });
  const lectern = await buildApp(config);
  return {
    lectern,
    dataDir: config.dataDir,
    async close() {
      await lectern.app.close();
      if (own) fs.rmSync(own, { recursive: true, force: true });
    },
  };
}
