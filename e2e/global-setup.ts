/**
 * Starts the real server for the browser tests the way an operator does on a fresh machine: an empty DATA_DIR, so
 * the first start imports the sample library and prints the demo account, which the tests then sign in with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
    demoEmail: string;
    demoPassword: string;
    dataDir: string;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Writes a small PDF with real text (pdf-lib) and imports it with the operators' command line. */
async function importGeneratedPdf(root: string, dataDir: string): Promise<void> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle('Lectern Field Manual');
  doc.setAuthor('The Lectern Team');
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let i = 1; i <= 3; i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Lectern Field Manual, page ${i}`, { x: 60, y: 760, size: 24, font });
    page.drawText('Chapters, playlists and the reader, explained for operators.', { x: 60, y: 720, size: 14, font });
  }
  const file = path.join(dataDir, 'field-manual.pdf');
  fs.writeFileSync(file, await doc.save());
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'import', file, '--topic', 'operations'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
}

let server: ChildProcess | null = null;
let dataDir = '';

export async function setup(project: TestProject): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  if (!fs.existsSync(path.join(root, 'packages/web/dist/index.html'))) throw new Error('build the web app first: npm run build');
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-e2e-'));
  const port = await freePort();
  server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      // Every spec signs the demo account in afresh; the production limit (10 a minute) would refuse the suite.
      LOGIN_RATE_LIMIT: '1000',
      SAMPLE_CACHE_DIR: path.join(os.tmpdir(), 'lectern-sample-cache'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<{ email: string; password: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), 110_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const email = /email:\s+(\S+)/.exec(output)?.[1];
      const password = /password:\s+(\S+)/.exec(output)?.[1];
      if (/Lectern is running at/.test(output) && email && password) {
        clearTimeout(timer);
        resolve({ email, password });
      }
    };
    server!.stdout!.on('data', onData);
    server!.stderr!.on('data', onData);
    server!.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  const demo = await ready;
  // A PDF document beside the sample books (which are EPUB 2 and EPUB 3), imported the way an operator does.
  await importGeneratedPdf(root, dataDir);
  project.provide('baseURL', `http://127.0.0.1:${port}`);
  project.provide('demoEmail', demo.email);
  project.provide('demoPassword', demo.password);
  project.provide('dataDir', dataDir);
}

export async function teardown(): Promise<void> {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}
