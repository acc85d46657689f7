/**
 * The long documents' indexes (docs/decisions.md, docs/performance.md) lead somewhere: every link of an index names
 * a heading of its document, as GitHub's anchors spell it. A renamed heading fails here instead of leaving a link
 * that goes nowhere. (A new section missing from the index is not failed: the index is by topic, kept by hand.)
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
    expect([...anchorsOf("## HTTP (`npm run bench`, i.e. `tsx bench/http.ts --rounds 7`)\n## Teams (issue 10)\n## Teams (issue 10)\n## A title's §4 rule")]).toEqual([
      'http-npm-run-bench-ie-tsx-benchhttpts---rounds-7',
      'teams-issue-10',
      'teams-issue-10-1',
      'a-titles-4-rule',
    ]);
  });

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
