/**
 * Calls run one way (docs/ARCHITECTURE.md): route -> service -> repository, and only repositories hold SQL. These
 * checks read the import lines of the server's sources, so a shortcut fails here rather than in review.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../src');

function sources(folder: string): Array<{ file: string; imports: string[] }> {
  const dir = path.join(src, folder);
  const files = fs.statSync(dir).isDirectory() ? fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f)) : [dir];
  return files.map((file) => ({
    file: path.relative(src, file),
    imports: [...fs.readFileSync(file, 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!),
  }));
}

const offenders = (folder: string, banned: RegExp) =>
  sources(folder).flatMap(({ file, imports }) => imports.filter((i) => banned.test(i)).map((i) => `${file} imports ${i}`));

describe('server layering', () => {
  it('routes run no SQL: no kysely, no repositories', () => {
    expect(offenders('routes', /^kysely$|\/repositories\//)).toEqual([]);
    for (const { file } of sources('routes')) expect(fs.readFileSync(path.join(src, file), 'utf8'), file).not.toMatch(/\bsql`/);
  });

  it('storage imports nothing from services (shared helpers live in util/)', () => {
    expect(offenders('storage', /\/services\//)).toEqual([]);
  });

  it('the first start goes through the services, not the repositories', () => {
    expect(offenders('first-start.ts', /\/repositories\/|\/db\//)).toEqual([]);
  });

  it('services hold no SQL: no kysely', () => {
    expect(offenders('services', /^kysely$/)).toEqual([]);
  });

  it('only repositories/conflicts.ts reads an engine\'s errors (its error codes, or a message saying "unique")', () => {
    const all = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? all(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const readers = all(src)
      .filter((f) => !f.includes(`${path.sep}migrations${path.sep}`) && path.relative(src, f) !== path.join('repositories', 'conflicts.ts'))
      .filter((f) => /23505|SQLITE_CONSTRAINT|unique\|duplicate/i.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(src, f));
    expect(readers).toEqual([]);
  });
});
