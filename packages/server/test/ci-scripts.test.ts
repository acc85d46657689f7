/**
 * CI's script and the set-up scripts parse: bash reads a script as it runs, so a broken line near the end (a quote
 * that ends a `node -e '...'` block early) let every tier run for an hour and then failed CI with no summary. Each
 * JavaScript block CI runs with `node -e` parses too.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const scripts = ['.ci/run', ...fs.readdirSync(path.join(root, 'scripts')).filter((f) => f.endsWith('.sh')).map((f) => `scripts/${f}`)];

it.each(scripts)('%s parses, with the JavaScript it runs', (script) => {
  const checked = spawnSync('bash', ['-n', path.join(root, script)], { encoding: 'utf8' });
  expect(checked.stderr).toBe('');
  expect(checked.status).toBe(0);
  // node -e '...' blocks: everything up to the next single quote, which bash takes as the block's end
  const text = fs.readFileSync(path.join(root, script), 'utf8');
  for (const block of text.matchAll(/node -e '([^']*)'/g)) {
    const parsed = spawnSync(process.execPath, ['--check'], { input: block[1], encoding: 'utf8' });
    expect(parsed.stderr, block[1]!.slice(0, 80)).toBe('');
    expect(parsed.status).toBe(0);
  }
});
