import type { ArchiveItem } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { blockBody } from '../../src/routes/reader.ts';
import { archiveItemOf, type BlockPart } from '../../src/services/reader.ts';

/** A shared item as the block service makes it: position 0, the chapter's own content, no checksum. */
function shared(over: Partial<ArchiveItem> = {}, resource: Partial<ArchiveItem['resources'][number]> = {}): ArchiveItem {
  return {
    title: 'Twenty "Thousand" Leagues \u2028 — Lieues',
    format: 'epub',
    source: 'upload',
    book_id: 'b-1',
    chapter_href: 'OEBPS/ch 1.xhtml',
    chapter: 'api/v1/book/b-1/chapter/OEBPS/ch 1.xhtml',
    is_system_book: false,
    allow_scripts: false,
    page_progression: 'rtl',
    language: null,
    chapter_label: 'Chapter <1> \\ "the sea" 海',
    rendition: { layout: 'reflowable', spread: null, flow: null, viewport: null } as unknown as ArchiveItem['rendition'],
    as_sample: false,
    is_public: false,
    next_chapter_uri: 'OEBPS/ch2.xhtml',
    previous_chapter_uri: null,
    top_percentage: 0,
    media_overlay: null,
    root_attributes: { class: 'a "b"', id: null, style: null } as unknown as ArchiveItem['root_attributes'],
    resources: [
      {
        uri: 'OEBPS/ch 1.xhtml',
        content: '<p>Plain "text" \u0001 </script> \u2028 é</p>',
        content_type: 'application/xhtml+xml',
        label: 'Chapter <1>',
        encoding: 'crypt64',
        checksum: null,
        item_order: 0,
        as_sample: false,
        is_public: false,
        stylesheets: ['a.css', 'b "c".css'],
        allow_scripts: false,
        ...resource,
      },
    ],
    error: null,
    url: null,
    ...over,
  };
}

/** A part's ciphertext as the service hands it: made when called, the same bytes each time. */
const bytesOf = (base64: string) => () => new Uint8Array(Buffer.from(base64, 'base64'));

const expected = (parts: BlockPart[]) => Buffer.from(JSON.stringify(parts.map(archiveItemOf)));

describe("the block answer's bytes, a chapter's shared JSON with each reader's parts in their slots", () => {
  it('are the bytes of JSON.stringify of the whole items: crypt64, plain, refused, several in one answer', () => {
    const crypt = shared();
    const plain = shared({ as_sample: true }, { encoding: null });
    const refused = shared({ resources: [], error: 'Sign in "now"', url: '/login/?next=%2Fr' });
    const parts: BlockPart[] = [
      { shared: crypt, top: 42.125, cipher: bytesOf('QUJD+/8='), checksum: '0123456789abcdef0123456789abcdef' },
      { shared: plain, top: 0, cipher: null, checksum: null },
      { shared: refused, top: 0, cipher: null, checksum: null },
      { shared: crypt, top: 7, cipher: bytesOf('ZZZZ'), checksum: 'ffffffffffffffffffffffffffffffff' },
    ];
    expect(blockBody(parts).equals(expected(parts))).toBe(true);
    // asked again (the templates made), the same; one part alone too
    expect(blockBody(parts).equals(expected(parts))).toBe(true);
    expect(blockBody([parts[3]!]).equals(expected([parts[3]!]))).toBe(true);
    expect(blockBody([]).toString()).toBe('[]');
  });

  it("never carries one reader's parts into another's answer, and leaves the shared item as it was", () => {
    const crypt = shared({ media: null });
    const before = JSON.stringify(crypt);
    const ada: BlockPart = { shared: crypt, top: 75, cipher: bytesOf('QWRh'), checksum: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' };
    const bob: BlockPart = { shared: crypt, top: Number.NaN, cipher: bytesOf('Qm9i'), checksum: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' };
    const adaBody = JSON.parse(blockBody([ada]).toString()) as ArchiveItem[];
    const bobBody = JSON.parse(blockBody([bob]).toString()) as ArchiveItem[];
    expect(adaBody[0]!.top_percentage).toBe(75);
    expect(adaBody[0]!.resources[0]).toMatchObject({ content: 'QWRh', checksum: 'a'.repeat(32) });
    // NaN is JSON's null, as JSON.stringify writes it
    expect(bobBody[0]!.top_percentage).toBeNull();
    expect(bobBody[0]!.resources[0]).toMatchObject({ content: 'Qm9i', checksum: 'b'.repeat(32) });
    expect(blockBody([bob]).equals(expected([bob]))).toBe(true);
    expect(JSON.stringify(crypt)).toBe(before);
  });
});
