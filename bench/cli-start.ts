/**
 * How long the operators' command line takes to start (docs/performance.md "The command line's start"): a process
 * of `node --import tsx packages/server/src/cli/main.ts <command>`, as an operator's `npm run lectern -- …` and the
 * server tests' CLI spawns run it, from spawn to exit.
 *
 * Commands: `--help` (no database) and `promo:list` on a SQLite DATA_DIR made fresh for the run (migrated by the
 * warm-up, so each round opens it, finds it up to date and lists nothing). Anchor: `node --import tsx -e 1`, the
 * same loader and no Lectern, in a process of its own. Each round runs every process once, in an order rotated from
 * round to round; printed as median and range (min-max) of the milliseconds and of the per-round ratio to the anchor.
 * With --compare DIR the same commands also run from another checkout (e.g. `git worktree add /tmp/before <commit>`
 * with its node_modules), alternating with this one's in the same rounds.
 *
 * Usage: npx tsx bench/cli-start.ts [--rounds 7] [--compare /path/to/other/checkout]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { summary } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, compare: { type: 'string' } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number');
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');

const here = path.resolve(import.meta.dirname, '..');
const roots: { name: string; dir: string }[] = [{ name: 'this checkout', dir: here }];
if (values.compare) roots.push({ name: path.resolve(values.compare), dir: path.resolve(values.compare) });
const CLI = 'packages/server/src/cli/main.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-cli-start-'));
/** The environment of every run: SQLite in a DATA_DIR of each checkout's own (never the operator's ./data). */
const envFor = (i: number): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(scratch, `data-${i}`), DATABASE_URL: '' };
  delete env.NODE_OPTIONS;
  return env;
};

interface Case {
  name: string;
  cwd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}
const cases: Case[] = [{ name: 'anchor: node --import tsx -e 1', cwd: here, args: ['--import', 'tsx', '-e', '1'], env: envFor(0) }];
for (const [i, root] of roots.entries()) {
  const label = roots.length > 1 ? ` (${root.name})` : '';
  cases.push({ name: `--help${label}`, cwd: root.dir, args: ['--import', 'tsx', CLI, '--help'], env: envFor(i) });
  cases.push({ name: `promo:list, fresh SQLite${label}`, cwd: root.dir, args: ['--import', 'tsx', CLI, 'promo:list'], env: envFor(i) });
}

function timed(c: Case): number {
  const started = performance.now();
  const ran = spawnSync(process.execPath, c.args, { cwd: c.cwd, env: c.env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (ran.status !== 0) throw new Error(`${c.name} exited ${ran.status}: ${ran.stderr}`);
  return ms;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`Lectern command-line start — ${new Date().toISOString()} — ${rounds} rounds, rotated order; node ${process.version}; ${os.cpus().length} cores; load before ${load()}`);
// warm-up: tsx's transform cache, the page cache, and each DATA_DIR migrated once
for (const c of cases) timed(c);

const times = cases.map(() => [] as number[]);
const ratios = cases.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  const order = cases.map((_, i) => (i + round) % cases.length);
  const ms: number[] = [];
  for (const i of order) ms[i] = timed(cases[i]!);
  for (const [i, t] of ms.entries()) {
    times[i]!.push(t);
    ratios[i]!.push(t / ms[0]!);
  }
}

for (const [i, c] of cases.entries()) {
  const ratio = i === 0 ? '' : `   ratio to anchor ${summary(ratios[i]!)}`;
  console.log(`${c.name.padEnd(48)} ${summary(times[i]!, 0)} ms${ratio}`);
}
console.log(`load after: ${load()}`);
fs.rmSync(scratch, { recursive: true, force: true });
