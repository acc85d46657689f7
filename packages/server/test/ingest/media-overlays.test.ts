/**
 * EPUB Media Overlays at import (docs/decisions.md "Read aloud"): the fixture of test/fixtures/read-aloud.ts parsed by
 * the EPUB importer, its hostile variant refused phrase by phrase, the bounds, SMIL clock values and the stored form.
 * The whole book through the worker and the API: test/api/read-aloud.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { clockValue, MAX_CLIPS_PER_CHAPTER, MAX_SMIL_BYTES, readerOverlay, storedOverlay } from '../../src/ingest/media-overlays.ts';
import { renderChapter } from '../../src/ingest/render.ts';
import { hostileOverlayEpub, PHRASES, readAloudEpub } from '../fixtures/read-aloud.ts';
import { unzipSync, zipSync } from 'fflate';

const chapter = (parsed: ReturnType<typeof parseEpub>, path: string) => parsed.chapters.find((c) => c.fullPath === path)!;

describe('media overlays at import', () => {
  const parsed = parseEpub(readAloudEpub(), 'read-aloud.epub');

  it('reads each spine item’s SMIL into its phrases, in order, with their clips', () => {
    const one = chapter(parsed, 'text/one.xhtml').mediaOverlay!;
    expect(one.clips).toEqual(PHRASES['text/one.xhtml'].map((fragment, i) => ({ fragment, audio: 'audio/one.wav', begin: i, end: i + 1 })));
    expect(one.activeClass).toBe('-epub-media-overlay-active');
    expect(one.playbackActiveClass).toBe('-epub-media-overlay-playing');
    expect(chapter(parsed, 'text/three.xhtml').mediaOverlay).toBeUndefined();
    expect(parsed.warnings.filter((w) => /overlay/i.test(w))).toEqual([]);
  });

  it('marks skippable phrases and where an escapable structure ends', () => {
    const two = chapter(parsed, 'text/two.xhtml').mediaOverlay!.clips;
    expect(two.map((c) => c.fragment)).toEqual([...PHRASES['text/two.xhtml']]);
    expect(two[0]).toMatchObject({ fragment: 'page-2', skippable: 'pagebreak' });
    expect(two[0]!.escapeTo).toBeUndefined();
    expect(two[1]!.skippable).toBeUndefined();
    // the four table cells, in two rows: skippable as table parts, and escaping past the whole table (not the row)
    // to "After the table."
    for (const i of [2, 3, 4, 5]) expect(two[i], two[i]!.fragment).toMatchObject({ skippable: 'table', escapeTo: 6, escapeFrom: 'table' });
    expect(two[6]).not.toHaveProperty('escapeTo');
    // the footnote: a structure of one phrase, skippable, escaping to the phrase after it
    expect(two[7]).toMatchObject({ fragment: 'note-1', skippable: 'footnote', escapeTo: 8, escapeFrom: 'footnote' });
    expect(two[8]).not.toHaveProperty('skippable');
    expect(two[8]).not.toHaveProperty('escapeTo');
  });

  it('escapes nested structures from the innermost outwards; a row or an item leaves its table or list', () => {
    const files = unzipSync(readAloudEpub());
    const par = (id: string, type = '') => `<par${type ? ` epub:type="${type}"` : ''}><text src="../text/two.xhtml#${id}"/><audio src="../audio/two.wav" clipBegin="0s" clipEnd="1s"/></par>`;
    const seq = (type: string, ...children: string[]) => `<seq epub:type="${type}">${children.join('')}</seq>`;
    const body = [
      par('a'),
      // a list whose first item holds a list of its own
      seq('list', seq('list-item', par('b'), seq('list', seq('list-item', par('c')), seq('list-item', par('d'))), par('e')), seq('list-item', par('f'))),
      // a figure holding a table and its caption
      seq('figure', seq('table', seq('table-row', par('g'))), par('h')),
      // a row marked without its table: the row is what there is to leave
      seq('table-row', par('i')),
      // an aside holding a note of one phrase
      seq('aside', par('j', 'note'), par('k')),
      // a sidebar holding a page break, to the end of the chapter
      seq('sidebar', par('l', 'pagebreak')),
    ].join('');
    files['OEBPS/smil/two.smil'] = new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?><smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0"><body>${body}</body></smil>`);
    // the chapter has the elements the phrases point at
    const ids = [...'abcdefghijkl'].map((id) => `<p id="${id}">${id}</p>`).join('');
    files['OEBPS/text/two.xhtml'] = new TextEncoder().encode(new TextDecoder().decode(files['OEBPS/text/two.xhtml']).replace('</body>', `${ids}</body>`));
    const clips = chapter(parseEpub(zipSync(files), 'nested.epub'), 'text/two.xhtml').mediaOverlay!.clips;
    const view = Object.fromEntries(clips.map((c) => [c.fragment, [c.escapeTo ?? null, c.escapeFrom ?? null, c.skippable ?? null]]));
    expect(view).toEqual({
      a: [null, null, null],
      b: [6, 'list', 'list'],
      c: [4, 'list', 'list'],
      d: [4, 'list', 'list'],
      e: [6, 'list', 'list'],
      f: [6, 'list', 'list'],
      g: [7, 'table', 'table'],
      h: [8, 'figure', null],
      i: [9, 'table-row', 'table-row'],
      j: [10, 'note', 'note'],
      k: [11, 'aside', null],
      // past the last phrase: the end of the chapter; the outer structure names what is skipped
      l: [12, 'sidebar', 'sidebar'],
    });
  });

  it('keeps the ids the overlay points at on the stored chapter HTML, and the audio as a resource', () => {
    const raw = unzipSync(readAloudEpub())['OEBPS/text/two.xhtml']!;
    const html = renderChapter(new TextDecoder().decode(raw), {
      chapterFullPath: 'text/two.xhtml',
      allowScripts: false,
      chapterUrl: (p) => `/read/${p}`,
      resourceUrl: (p) => `/files/${p}`,
      isChapter: () => false,
      isResource: () => true,
      inlineStyleUrl: (i) => `/files/s${i}.css`,
    }).html;
    for (const id of PHRASES['text/two.xhtml']) expect(html).toContain(`id="${id}"`);
    expect(parsed.resources.map((r) => [r.fullPath, r.mediaType])).toContainEqual(['audio/two.wav', 'audio/wav']);
  });

  it('stores a compact form that reads back as the reader’s field, audio as served addresses', () => {
    const overlay = chapter(parsed, 'text/two.xhtml').mediaOverlay!;
    const stored = storedOverlay(overlay);
    expect(JSON.parse(stored)).toEqual({
      v: 1,
      active: '-epub-media-overlay-active',
      playing: '-epub-media-overlay-playing',
      audio: ['audio/two.wav'],
      clips: [
        ['page-2', 0, 0, 1, 'pagebreak'],
        ['two-1', 0, 1, 2],
        ...[2, 3, 4, 5].map((i) => [`cell-${i - 1}`, 0, i, i + 1, 'table', 6, 'table']),
        ['two-2', 0, 6, 7],
        ['note-1', 0, 7, 8, 'footnote', 8, 'footnote'],
        ['two-3', 0, 8, 9],
      ],
    });
    const reader = readerOverlay(stored, (p) => `/api/v1/book/b/chapter/${p}`)!;
    expect(reader.audio).toEqual(['/api/v1/book/b/chapter/audio/two.wav']);
    expect(reader.clips[2]).toEqual({ fragment: 'cell-1', audio: 0, begin: 2, end: 3, skippable: 'table', escape_to: 6, escape_from: 'table' });
    // a row stored before escape_from was kept (six fields) still reads
    const older = readerOverlay(JSON.stringify({ v: 1, active: null, playing: null, audio: ['a.wav'], clips: [['c', 0, 0, 1, 'table', 1]] }), String)!;
    expect(older.clips[0]).toEqual({ fragment: 'c', audio: 0, begin: 0, end: 1, skippable: 'table', escape_to: 1 });
    expect(readerOverlay('{"v":2}', String)).toBeNull();
    expect(readerOverlay('not json', String)).toBeNull();
    expect(readerOverlay(null, String)).toBeNull();
  });
});

describe('hostile media overlays', () => {
  const parsed = parseEpub(hostileOverlayEpub(), 'hostile-overlay.epub');

  it('keeps only phrases of the chapter itself that play the book’s own audio; a path above the root is clamped', () => {
    const one = chapter(parsed, 'text/one.xhtml').mediaOverlay!;
    expect(one.clips).toEqual([
      { fragment: 'one-3', audio: 'audio/one.wav', begin: 2, end: 3 },
      { fragment: 'one-4', audio: 'audio/one.wav', begin: 3, end: 4 },
    ]);
    const said = parsed.warnings.join('\n');
    expect(said).toMatch(/smil\/one\.smil: 7 phrase\(s\) play what is not an audio file of the book's manifest; left out/);
    expect(said).toMatch(/2 phrase\(s\) point at another document than their chapter/);
    expect(said).toMatch(/1 phrase\(s\) point at no plain fragment id/);
    expect(said).toMatch(/2 phrase\(s\) have clip times that are not SMIL clock values in order/);
    expect(said).toMatch(/names the media overlay "mo-missing", which is not in the manifest/);
    expect(JSON.stringify(one)).not.toMatch(/javascript|evil|passwd|data:/);
  });

  it('bounds the phrases of a chapter and the nesting of <seq>', () => {
    const two = chapter(parsed, 'text/two.xhtml').mediaOverlay!;
    expect(two.clips).toHaveLength(MAX_CLIPS_PER_CHAPTER);
    expect(two.clips[0]!.fragment).toBe('two-1');
    expect(two.clips.some((c) => c.fragment === 'deep')).toBe(false);
    expect(parsed.warnings.join('\n')).toMatch(/nests <seq> more than 32 deep/);
    expect(parsed.warnings.join('\n')).toMatch(new RegExp(`more than ${MAX_CLIPS_PER_CHAPTER} phrases; the rest are left out`));
  });

  it('does not read a SMIL file past its size bound', () => {
    const files = unzipSync(readAloudEpub());
    const big = new TextDecoder().decode(files['OEBPS/smil/one.smil']).replace('<body>', `<body><!--${'x'.repeat(MAX_SMIL_BYTES)}-->`);
    files['OEBPS/smil/one.smil'] = new TextEncoder().encode(big);
    const result = parseEpub(zipSync(files), 'big.epub');
    expect(chapter(result, 'text/one.xhtml').mediaOverlay).toBeUndefined();
    expect(chapter(result, 'text/two.xhtml').mediaOverlay).toBeDefined();
    expect(result.warnings.join('\n')).toMatch(/smil\/one\.smil is \d+ KB, more than the 4 MB read; left out/);
  });

  // real-books bug 6: IDPF's Moby-Dick sample as stored, whose SMIL names ids its chapter does not have
  it('leaves out phrases whose element the chapter lacks, and says so; no phrase left, no overlay', () => {
    const files = unzipSync(readAloudEpub());
    const two = new TextDecoder().decode(files['OEBPS/smil/two.smil']);
    // chapter two: two of its nine targets renamed away from the chapter's ids, one of them inside the table
    files['OEBPS/smil/two.smil'] = new TextEncoder().encode(two.replace('#two-2"', '#c001s0002"').replace('#cell-3"', '#c001s0003"'));
    // chapter one: every target renamed (the chapter has one-1 … one-4; "One-1" differs in case, an id is case-sensitive)
    const one = new TextDecoder().decode(files['OEBPS/smil/one.smil']);
    files['OEBPS/smil/one.smil'] = new TextEncoder().encode(one.replace(/#one-(\d)"/g, '#One-$1"'));
    const result = parseEpub(zipSync(files), 'missing-ids.epub');
    expect(chapter(result, 'text/one.xhtml').mediaOverlay).toBeUndefined();
    const clips = chapter(result, 'text/two.xhtml').mediaOverlay!.clips;
    expect(clips.map((c) => c.fragment)).toEqual(['page-2', 'two-1', 'cell-1', 'cell-2', 'cell-4', 'note-1', 'two-3']);
    // the escape targets count the phrases kept: the three cells left escape to the phrase after the table
    for (const i of [2, 3, 4]) expect(clips[i], clips[i]!.fragment).toMatchObject({ skippable: 'table', escapeTo: 5, escapeFrom: 'table' });
    expect(clips[5]).toMatchObject({ fragment: 'note-1', escapeTo: 6, escapeFrom: 'footnote' });
    const overlayWarnings = result.warnings.filter((w) => /overlay/.test(w));
    expect(overlayWarnings).toEqual([
      'the media overlay smil/one.smil: 4 of 4 text targets are not in text/one.xhtml; the chapter has no media overlay (the browser reads it aloud)',
      'the media overlay smil/two.smil: 2 of 9 text targets are not in text/two.xhtml; those phrases are left out',
    ]);
  });

  it('refuses class names that are not class names', () => {
    const files = unzipSync(readAloudEpub());
    const opf = new TextDecoder().decode(files['OEBPS/content.opf']).replace('-epub-media-overlay-active', 'x{} body{display:none');
    files['OEBPS/content.opf'] = new TextEncoder().encode(opf);
    const result = parseEpub(zipSync(files), 'class.epub');
    expect(chapter(result, 'text/one.xhtml').mediaOverlay!.activeClass).toBeNull();
    expect(result.warnings.join('\n')).toMatch(/media:active-class .* is not a class name/);
  });
});

describe('SMIL clock values', () => {
  it.each([
    ['0:00:01.500', 1.5],
    ['1:02:03', 3723],
    ['02:03.25', 123.25],
    ['3.5s', 3.5],
    ['1500ms', 1.5],
    ['2min', 120],
    ['1h', 3600],
    ['7', 7],
    ['.5', 0.5],
  ])('%s is %s seconds', (raw, seconds) => expect(clockValue(raw)).toBe(seconds));

  it.each([['soon'], ['-1s'], ['1:2:3'], ['25h'], ['1e3'], ['NaN'], ['']])('%s is not one', (raw) => expect(clockValue(raw)).toBeNaN());
});
