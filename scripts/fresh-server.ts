/**
 * Starts Lectern the way an operator does on a fresh machine — `packages/server/src/main.ts` on an empty
 * DATA_DIR — and reads the demo account it prints. The browser tests and the reader benchmark run against it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';

export interface FreshServer {
  server: ChildProcess;
  base: string;
  email: string;
  password: string;
  dataDir: string;
  /** what the start printed until it was running (and `waitFor` was seen) */
  output: string;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startFreshServer(opts: {
  dataDirPrefix: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  port?: number;
  /** runs on the empty DATA_DIR before the start (a title imported here means no sample library is imported) */
  prepare?: (dataDir: string) => void;
  /** a line the start must also have printed before it counts as started */
  waitFor?: RegExp;
  /** another checkout's server (a bench comparing with the code before a change, server side included) */
  root?: string;
}): Promise<FreshServer> {
  // (a build elsewhere, WEB_DIST, serves as well: the benches compare builds without touching packages/web/dist)
  const dist = opts.env?.WEB_DIST ?? process.env.WEB_DIST ?? path.join(root, 'packages/web/dist');
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`build the web app first: npm run build (no ${dist}/index.html)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.dataDirPrefix));
  opts.prepare?.(dataDir);
  const port = opts.port ?? (await freePort());
  const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: opts.root ?? root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      // Each spec signs the demo account in afresh; the production limit (10 a minute) would refuse the suite.
      LOGIN_RATE_LIMIT: '1000',
      SAMPLE_CACHE_DIR: path.join(os.tmpdir(), 'lectern-sample-cache'),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const demo = await new Promise<{ email: string; password: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), opts.timeoutMs ?? 110_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const email = /email:\s+(\S+)/.exec(output)?.[1];
      const password = /password:\s+(\S+)/.exec(output)?.[1];
      if (/Lectern is running at/.test(output) && email && password && (!opts.waitFor || opts.waitFor.test(output))) {
        clearTimeout(timer);
        resolve({ email, password });
      }
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    server,
    base: `http://127.0.0.1:${port}`,
    dataDir,
    output,
    ...demo,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Imports a book file into a server's DATA_DIR with the operators' command line, as an operator does; returns what it printed. */
export function importBook(dataDir: string, file: string, extraArgs: readonly string[] = []): string {
  return lecternCli(dataDir, ['import', file, ...extraArgs]);
}

/** Runs the operators' command line on the server's DATA_DIR (SQLite), as an operator would beside it. */
export function lecternCli(dataDir: string, args: readonly string[]): string {
  try {
    return execFileSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (err) {
    // What the command said, in the failure itself: a test runner shows an error's message, not its stderr (a
    // setup's import once failed under CI's load with nothing but the command line to go on).
    const { status, stdout, stderr } = err as { status?: number | null; stdout?: string; stderr?: string };
    throw new Error(`lectern ${args.join(' ')} exited with ${status ?? 'a signal'}\n${stdout ?? ''}${stderr ?? ''}`.trimEnd(), { cause: err });
  }
}

/** Debian's Chromium as the browser tests and benches run it: headless, and nothing but loopback on the network. */
export const CHROMIUM_LAUNCH = {
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  args: [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // localhost and its subdomains stay: the suite's scripted origin is there, a host per title (the app is on 127.0.0.1)
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE *.localhost',
  ],
};

/** Signs an account in through the sign-in page, as a reader does, and waits for the page it lands on (`landing`, the catalog unless asked). */
export async function signIn(page: Page, email: string, password: string, landing = '/library/'): Promise<void> {
  // Sign-in lands on the home by default; the specs and benches that start from the catalog ask for it.
  await page.goto(`/login/?next=${encodeURIComponent(landing)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === landing);
}
