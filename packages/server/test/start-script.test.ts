/** `npm start` builds the web app only when packages/web/dist is missing or older than its sources. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILD_INPUTS, buildReason } from '../../../scripts/build-web-if-stale.ts';

const root = path.resolve(import.meta.dirname, '../../..');

describe('npm start', () => {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-start-'));
  afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));
  const write = (file: string, when: Date) => {
    const full = path.join(tree, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, file);
    fs.utimesSync(full, when, when);
    fs.utimesSync(path.dirname(full), when, when);
  };
  const earlier = new Date('2026-01-01T10:00:00Z');
  const later = new Date('2026-01-01T11:00:00Z');

  it('builds the web app through the staleness check, not on every start', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toMatch(/^tsx scripts\/build-web-if-stale\.ts && /);
    expect(pkg.scripts.start).not.toMatch(/npm run build/);
  });

  it('builds when there is no build, skips when the build is newer than every source, builds again after a change', () => {
    write('packages/web/src/main.tsx', earlier);
    write('packages/core/src/index.ts', earlier);
    expect(buildReason(tree, {})).toBe('no build yet');
    write('packages/web/dist/index.html', later);
    expect(buildReason(tree, {})).toBeNull();
    expect(buildReason(tree, { LECTERN_BUILD: 'always' })).toBe('LECTERN_BUILD=always');
    write('packages/core/src/index.ts', new Date(later.getTime() + 1000));
    expect(buildReason(tree, {})).toBe('sources changed since the last build');
  });

  it("starts the server with the heap sized for the memory budget (docs/decisions.md \"The server's heap sized for the memory budget\")", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // the Node flags before the server's entry, as bench/library-scale.ts reads them
    const flags = /\bnode ((?:--[\w-]+(?:=\S+)? )*)--import tsx packages\/server\/src\/main\.ts$/.exec(pkg.scripts.start ?? '')?.[1]?.trim().split(/\s+/) ?? [];
    const limitMb = Number(execFileSync(process.execPath, [...flags, '-p', "require('node:v8').getHeapStatistics().heap_size_limit / 1048576"], { encoding: 'utf8' }));
    // V8 grows the heap up to 4x what a collection left at a limit of 2 GB or more, about 1.6x at 1 GB.
    // The limit adds the young generation to the old space: about 1,072 MB on Node 20, 1,216 MB on Node 24.
    expect(limitMb).toBeGreaterThan(512);
    expect(limitMb).toBeLessThan(1400);
  });

  it('watches the web app, core and the lockfile', () => {
    expect(BUILD_INPUTS).toEqual(expect.arrayContaining(['packages/web/src', 'packages/core/src', 'package-lock.json']));
  });
});
