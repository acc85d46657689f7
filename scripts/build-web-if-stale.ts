/**
 * `npm start` builds the web app only when it must: when packages/web/dist has no index.html, or when a source of
 * the build (the web app, core, their package and TypeScript settings, the lockfile) is newer than that
 * index.html, which vite writes at the end of a build. A fresh clone has no build, so it builds; `git pull` gives
 * the files it changes a new time. LECTERN_BUILD=always forces a build.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const BUILD_INPUTS = [
  'packages/web/src',
  'packages/web/public',
  'packages/web/index.html',
  'packages/web/vite.config.ts',
  'packages/web/tsconfig.json',
  'packages/web/package.json',
  'packages/core/src',
  'packages/core/package.json',
  'tsconfig.base.json',
  'package-lock.json',
];

/** The newest modification time under a file or folder (0 when it does not exist). */
function newest(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of fs.readdirSync(entry)) max = Math.max(max, newest(path.join(entry, name)));
  return max;
}

/** Why the web app must be built, or null when packages/web/dist is up to date. */
export function buildReason(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.LECTERN_BUILD === 'always') return 'LECTERN_BUILD=always';
  const built = path.join(root, 'packages/web/dist/index.html');
  if (!fs.existsSync(built)) return 'no build yet';
  const changed = Math.max(...BUILD_INPUTS.map((input) => newest(path.join(root, input))));
  return changed > fs.statSync(built).mtimeMs ? 'sources changed since the last build' : null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(import.meta.dirname, '..');
  const reason = buildReason(root);
  if (!reason) {
    console.log('[lectern] the web app is built and up to date (packages/web/dist)');
    process.exit(0);
  }
  console.log(`[lectern] building the web app (${reason})…`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
