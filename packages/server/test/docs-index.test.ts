/**
 * The long documents' indexes (docs/decisions.md, docs/performance.md) lead somewhere: every link of an index names
 * a heading of its document, as GitHub's anchors spell it. A renamed heading fails here instead of leaving a link
 * that goes nowhere. (A new section missing from the index is not failed: the index is by topic, kept by hand.)
 * Their headings name no issue or session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const docs = path.resolve(import.meta.dirname, '../../../docs');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The `(#anchor)` links of the document's "## Index" section. */
function indexLinks(markdown: string): string[] {
  const index = /^## Index\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  return [...index.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
}

describe('the indexes of the long documents', () => {
  it('spells anchors as GitHub does', () => {
    expect([...anchorsOf("## HTTP (`npm run bench`, i.e. `tsx bench/http.ts --rounds 7`)\n## Notices (library-playlists-account.md §4)\n## Notices (library-playlists-account.md §4)\n## A title's §4 rule")]).toEqual([
      'http-npm-run-bench-ie-tsx-benchhttpts---rounds-7',
      'notices-library-playlists-accountmd-4',
      'notices-library-playlists-accountmd-4-1',
      'a-titles-4-rule',
    ]);
  });

  // A heading says what it is about, not which issue or which helper's session it came from: code and other documents
  // cite headings by name (docs/decisions.md "Teams"), and such a name would outlive what it meant.
  for (const file of ['decisions.md', 'performance.md', 'conformance.md']) {
    it(`docs/${file}: no heading names an issue or a session`, () => {
      const text = fs.readFileSync(path.join(docs, file), 'utf8');
      const headings = text.split('\n').filter((line) => /^#{1,6} /.test(line));
      expect(headings.filter((h) => /\bissues? \d+|\bsession h?\d+|[(,;] ?h\d+\b/i.test(h))).toEqual([]);
    });
  }

  for (const file of ['decisions.md', 'performance.md']) {
    it(`docs/${file}: every line of the index leads to a heading`, () => {
      const text = fs.readFileSync(path.join(docs, file), 'utf8');
      const links = indexLinks(text);
      expect(links.length).toBeGreaterThan(10);
      const anchors = anchorsOf(text);
      expect(links.filter((link) => !anchors.has(link))).toEqual([]);
    });
  }
});
