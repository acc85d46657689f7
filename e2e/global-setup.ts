/**
 * Starts the real server for the browser tests the way an operator does on a fresh machine: an empty DATA_DIR, so
 * the first start imports the sample library and prints the demo account, which the tests then sign in with.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type FreshServer, startFreshServer } from '../scripts/fresh-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
    demoEmail: string;
    demoPassword: string;
    dataDir: string;
  }
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

let fresh: FreshServer | null = null;

export async function setup(project: TestProject): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  fresh = await startFreshServer({ dataDirPrefix: 'lectern-e2e-' });
  // A PDF document beside the sample books (which are EPUB 2 and EPUB 3), imported the way an operator does.
  await importGeneratedPdf(root, fresh.dataDir);
  project.provide('baseURL', fresh.base);
  project.provide('demoEmail', fresh.email);
  project.provide('demoPassword', fresh.password);
  project.provide('dataDir', fresh.dataDir);
}

export async function teardown(): Promise<void> {
  await fresh?.stop();
}
