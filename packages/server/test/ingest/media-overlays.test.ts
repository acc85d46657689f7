/**
 * EPUB Media Overlays at import (issue 12, read aloud): the fixture of test/fixtures/read-aloud.ts parsed by the
 * EPUB importer, its hostile variant refused phrase by phrase, the bounds, SMIL clock values and the stored form.
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
    expect(two[1]!.skippable).toBeUndefined();
    // the two table cells: skippable as table parts, and escaping past the table to "After the table."
    expect(two[2]).toMatchObject({ skippable: 'table', escapeTo: 4 });
    expect(two[3]).toMatchObject({ skippable: 'table', escapeTo: 4 });
    expect(two[4]!.escapeTo).toBeUndefined();
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
      clips: [['page-2', 0, 0, 1, 'pagebreak'], ['two-1', 0, 1, 2], ['cell-1', 0, 2, 3, 'table', 4], ['cell-2', 0, 3, 4, 'table', 4], ['two-2', 0, 4, 5]],
    });
    const reader = readerOverlay(stored, (p) => `/api/v1/book/b/chapter/${p}`)!;
    expect(reader.audio).toEqual(['/api/v1/book/b/chapter/audio/two.wav']);
    expect(reader.clips[2]).toEqual({ fragment: 'cell-1', audio: 0, begin: 2, end: 3, skippable: 'table', escape_to: 4 });
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
    const big = new TextDecoder().decode(files['OEBPS/smil/one.smil']!).replace('<body>', `<body><!--${'x'.repeat(MAX_SMIL_BYTES)}-->`);
    files['OEBPS/smil/one.smil'] = new TextEncoder().encode(big);
    const result = parseEpub(zipSync(files), 'big.epub');
    expect(chapter(result, 'text/one.xhtml').mediaOverlay).toBeUndefined();
    expect(chapter(result, 'text/two.xhtml').mediaOverlay).toBeDefined();
    expect(result.warnings.join('\n')).toMatch(/smil\/one\.smil is \d+ KB, more than the 4 MB read; left out/);
  });

  it('refuses class names that are not class names', () => {
    const files = unzipSync(readAloudEpub());
    const opf = new TextDecoder().decode(files['OEBPS/content.opf']!).replace('-epub-media-overlay-active', 'x{} body{display:none');
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
