/**
 * The import worker as compiled JavaScript: each import starts a process (ingest/worker-host.ts), and through a
 * TypeScript loader that start cost a second and more of compiling before the worker read a byte. The worker's
 * sources (with @lectern/core's) are bundled once per server process by esbuild (tsx's own, a dependency already)
 * into `packages/server/node_modules/.cache/lectern-import-worker/<hash>/`, named by a hash of what was built, so
 * a changed source gives a new folder and a running server never loads half of an old one. Packages from
 * node_modules stay outside the bundle and are loaded from there as before (pdf.ts patches pdf-lib's own copy).
 * PDF code is a chunk of its own, loaded for PDFs only. Where the bundle cannot be made or written (a read-only
 * install), the worker runs through tsx as before.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerEntry {
  /** The script to fork. */
  file: string;
  /** node options it needs (the TypeScript loader when it is not compiled). */
  execArgv: string[];
  compiled: boolean;
}

const SOURCE = fileURLToPath(new URL('./worker.ts', import.meta.url));
const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = path.join(SERVER_ROOT, 'node_modules', '.cache', 'lectern-import-worker');
const requireHere = createRequire(import.meta.url);

let entry: Promise<WorkerEntry> | null = null;

/** Bundles unused this long are removed when a new one is written (a server running older code rebuilds its own). */
const STALE_MS = 30 * 24 * 3600_000;

/** The worker to start: compiled on the first call in this process (again if its files went), through tsx if that fails. */
export async function workerEntry(): Promise<WorkerEntry> {
  entry ??= compile().catch(() => ({ file: SOURCE, execArgv: ['--import', pathToFileURL(requireHere.resolve('tsx')).href], compiled: false }));
  const found = await entry;
  if (found.compiled && !existsSync(found.file)) {
    entry = null;
    return workerEntry();
  }
  return found;
}

async function compile(): Promise<WorkerEntry> {
  // esbuild is tsx's dependency: resolved from tsx, so the version is the one tsx was installed with.
  const esbuild = createRequire(requireHere.resolve('tsx'))('esbuild') as typeof import('esbuild');
  const built = await esbuild.build({
    entryPoints: { worker: SOURCE },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    outdir: CACHE, // only names the files: nothing is written here
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'lectern-packages-outside',
        setup(build) {
          // Bare imports stay imports, except the workspace's own TypeScript packages, which node cannot load.
          build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@lectern/') ? undefined : { external: true }));
        },
      },
    ],
  });
  const hash = createHash('sha256');
  for (const file of built.outputFiles) hash.update(path.basename(file.path)).update(file.contents);
  const folder = path.join(CACHE, hash.digest('hex').slice(0, 16));
  const file = path.join(folder, 'worker.js');
  const exists = await fs.stat(file).then(() => true, () => false);
  if (!exists) {
    // Written aside and renamed into place: another process building the same bundle meanwhile is harmless.
    const staging = `${folder}.${process.pid}.${Date.now()}`;
    await fs.mkdir(staging, { recursive: true });
    for (const out of built.outputFiles) await fs.writeFile(path.join(staging, path.basename(out.path)), out.contents);
    await fs.rename(staging, folder).catch(async (error: NodeJS.ErrnoException) => {
      await fs.rm(staging, { recursive: true, force: true });
      if (!(await fs.stat(file).then(() => true, () => false))) throw error;
    });
    await removeStale(folder);
  }
  return { file, execArgv: [], compiled: true };
}

async function removeStale(keep: string): Promise<void> {
  for (const name of await fs.readdir(CACHE).catch(() => [])) {
    const other = path.join(CACHE, name);
    if (other === keep) continue;
    const stat = await fs.stat(other).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > STALE_MS) await fs.rm(other, { recursive: true, force: true }).catch(() => {});
  }
}
