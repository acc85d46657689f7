/**
 * One home per rule: the content-address format (core/paths.ts), the safe-redirect rule (core/redirects.ts) and the
 * messages a person reads (core/messages.ts) are written once. These checks read the sources of every package so a
 * second copy fails here rather than in review.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

const files = ['core', 'server', 'web'].flatMap((p) => sourceFiles(path.join(packages, p, 'src')));
const matching = (pattern: RegExp, ...homes: string[]) =>
  files.filter((f) => !homes.includes(path.relative(packages, f)) && pattern.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(packages, f));

describe('one home per rule', () => {
  it('content addresses are built only by core/paths.ts', () => {
    expect(matching(/`\/?api\/v1\/book\/\$\{/, 'core/src/paths.ts')).toEqual([]);
  });

  it('the safe-redirect rule is written only in core/redirects.ts', () => {
    expect(matching(/\bfunction safeNext/, 'core/src/redirects.ts')).toEqual([]);
  });

  it('every message object lives in core/messages.ts', () => {
    // The operators' console's words live beside them: messages.ts is in the readers' entry, the console is its own
    // lazily loaded chunk (docs/decisions.md "The operators' console, web side").
    expect(matching(/_MESSAGES = \{/, 'core/src/messages.ts', 'core/src/console-messages.ts')).toEqual([]);
  });

  it('a title’s progress is computed only by core/progress.ts', () => {
    // A chapter's length times a position is the rule's weighting. Its one SQL form is the second home: the console's
    // figures over every reader of a title cannot load their chapter rows into core, so the SQL is written once there
    // and test/db/title-progress-sql.test.ts holds it to core's titleProgress on both engines.
    expect(matching(/text_length \* |weight \* /, 'core/src/progress.ts', 'server/src/repositories/title-progress-sql.ts')).toEqual([]);
  });

  it('text is folded only by core/text-fold.ts', () => {
    // The server's index and queries, the reader's marks (core/test/text-fold.test.ts) and the stored sort and name
    // keys (catalog.ts nameKey is foldText with punctuation to spaces) fold alike. The one other normaliser makes
    // slugs (format.ts), addresses kept as they were so existing ones do not change (docs/decisions.md "Text folding:
    // one rule in core"). Migrations keep the copy they were written with.
    const others = matching(/\.normalize\('NFK?D'\)/, 'core/src/text-fold.ts', 'core/src/format.ts');
    expect(others.filter((f) => !f.startsWith('server/src/db/migrations/'))).toEqual([]);
  });
});
