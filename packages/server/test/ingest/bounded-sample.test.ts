import { describe, expect, it } from 'vitest';
import { parseHtml, visibleText } from '../../src/ingest/markup.ts';
import { openingPart, pdfSamplePages, textSampleLength } from '../../src/ingest/sample.ts';

const paragraph = (n: number) => `<p id="p${n}">${`Paragraph ${n} `.padEnd(100, 'x')}</p>`;
const textOf = (html: string) => visibleText(parseHtml(html).children);

describe('bounded samples', () => {
  it('gives a PDF 10% of its pages, at most 20, at least 1, and nothing when that would be all of it', () => {
    expect([1, 2, 9, 10, 19, 50, 199, 200, 1000].map(pdfSamplePages)).toEqual([0, 1, 1, 1, 1, 5, 19, 20, 20]);
  });

  it('keeps a tenth of the text, at most 20,000 characters', () => {
    expect(textSampleLength(71_047)).toBe(7_104);
    expect(textSampleLength(1_000_000)).toBe(20_000);
    expect(textSampleLength(3)).toBe(1);
  });

  it('cuts between whole blocks, inside containers, and leaves everything after the cut out', () => {
    const html = `<section><h1>Title</h1><div class="body">${Array.from({ length: 20 }, (_, i) => paragraph(i + 1)).join('')}</div></section><p>After</p>`;
    const part = openingPart(html, textOf(html).length);
    const kept = textOf(part);
    expect(kept.length).toBeLessThanOrEqual(Math.floor(textOf(html).length / 10));
    expect(part).toMatch(/^<section><h1>Title<\/h1><div class="body"><p id="p1">/);
    expect(part).toContain('id="p1"');
    expect(part).not.toContain('id="p3"');
    expect(part).not.toContain('After');
    expect(part.endsWith('</p></div></section>')).toBe(true);
  });

  it('keeps the first block whole even when it alone is longer than the sample', () => {
    const html = `<p>${'word '.repeat(500)}</p><p>second</p>`;
    const part = openingPart(html, textOf(html).length);
    expect(textOf(part)).toBe(textOf(`<p>${'word '.repeat(500)}</p>`));
    expect(part).not.toContain('second');
  });

  it('keeps text as text: entities and non-Latin letters survive the cut', () => {
    const html = `<p>Fish &amp; chips &lt;b&gt; — café ${'ü'.repeat(30)}</p>${paragraph(2).repeat(10)}`;
    const part = openingPart(html, textOf(html).length);
    expect(part).toContain('Fish &amp; chips &lt;b&gt; — café');
    expect(part).not.toContain('<b>');
  });
});
