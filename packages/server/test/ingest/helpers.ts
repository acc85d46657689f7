/**
 * Shared fixtures for the ingest tests: the real sample books (fetched once into a cache shared by every run)
 * and a builder for small hand-made EPUBs, for rules that no real sample book happens to break.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { fetchSampleLibrary, type SampleBook } from '../../src/sample/fetch.ts';

export const SAMPLE_CACHE = path.join(os.tmpdir(), 'lectern-sample-cache');
export const FETCH_TIMEOUT_MS = 180_000;

export interface NpmSamples {
  alice: SampleBook;
  worlds: SampleBook;
  moby: SampleBook;
}

export async function fetchNpmSamples(): Promise<NpmSamples> {
  const books = await fetchSampleLibrary(SAMPLE_CACHE);
  const find = (fileName: string): SampleBook => {
    const book = books.find((candidate) => candidate.file.endsWith(fileName));
    if (!book) throw new Error(`the sample library has no ${fileName}`);
    return book;
  };
  return { alice: find('alice.epub'), worlds: find('testbook.epub'), moby: find('moby-dick.epub') };
}

export function readBook(book: SampleBook): Uint8Array {
  return new Uint8Array(readFileSync(book.file));
}

const encoder = new TextEncoder();

/** A zip in the given entry order; "mimetype" is stored uncompressed as OCF asks. */
export function buildZip(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' ? encoder.encode(content) : content;
    entries[name] = name === 'mimetype' ? [data, { level: 0 }] : data;
  }
  return zipSync(entries);
}

export const CONTAINER_XML = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`;

export function xhtml(title: string, body: string, head = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>${title}</title>${head}</head>
<body>${body}</body>
</html>`;
}

/** One chapter of `epubBook`: its path below OEBPS/, its contents label and heading, and its body's markup. */
export interface BookChapter {
  path: string;
  label: string;
  body: string;
  /** markup for the chapter's head (scripts, stylesheets) */
  head?: string;
}

/**
 * A small EPUB 3 from its parts: the package (identifier, title, creator, language, modified), a nav listing the
 * chapters, an optional cover, the chapters in spine order, and any other files below OEBPS/ (`files`, with their
 * manifest lines in `manifest`). For tests that need a book of their own words rather than minimalEpub3's.
 */
export function epubBook(book: {
  identifier: string;
  title: string;
  chapters: BookChapter[];
  creator?: string;
  language?: string;
  modified?: string;
  cover?: Uint8Array;
  manifest?: string[];
  files?: Record<string, string | Uint8Array>;
  /** more metadata elements (dc:subject, dc:publisher…), as they are */
  metadata?: string[];
  /** the spine's page-progression-direction */
  pageProgression?: 'ltr' | 'rtl';
}): Uint8Array {
  const items = book.chapters.map((c, i) => `<item id="c${i}" href="${c.path}" media-type="application/xhtml+xml"/>`);
  const nav = book.chapters.map((c) => `<li><a href="${c.path}">${c.label}</a></li>`).join('');
  const files: Record<string, string | Uint8Array> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">${book.identifier}</dc:identifier>
    <dc:title>${book.title}</dc:title>${book.creator ? `<dc:creator>${book.creator}</dc:creator>` : ''}<dc:language>${book.language ?? 'en'}</dc:language>
    <meta property="dcterms:modified">${book.modified ?? '2024-01-01T00:00:00Z'}</meta>${(book.metadata ?? []).join('')}
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    ${[...(book.cover ? ['<item id="cover" href="cover.png" media-type="image/png" properties="cover-image"/>'] : []), ...items, ...(book.manifest ?? [])].join('\n    ')}
  </manifest>
  <spine${book.pageProgression ? ` page-progression-direction="${book.pageProgression}"` : ''}>${book.chapters.map((_c, i) => `<itemref idref="c${i}"/>`).join('')}</spine>
</package>`,
    'OEBPS/nav.xhtml': xhtml('Contents', `<nav epub:type="toc" id="toc"><ol>${nav}</ol></nav>`),
  };
  if (book.cover) files['OEBPS/cover.png'] = book.cover;
  for (const c of book.chapters) files[`OEBPS/${c.path}`] = xhtml(c.label, c.body, c.head);
  for (const [name, data] of Object.entries(book.files ?? {})) files[`OEBPS/${name}`] = data;
  return buildZip(files);
}

/** 1x1 transparent PNG. */
export const PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'),
);

/**
 * A small, valid EPUB 3: a nav TOC of depth 2, a percent-encoded chapter file name ("chapter 1.xhtml"), links
 * with "../", an aut and an edt creator, a cover image. `overrides` replace or (with null) remove entries.
 */
export function minimalEpub3(overrides: Record<string, string | Uint8Array | null> = {}): Uint8Array {
  const files: Record<string, string | Uint8Array | null> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="other">isbn-not-this-one</dc:identifier>
    <dc:identifier id="uid"> urn:uuid:5a1e0c3e-0000-4000-8000-000000000001 </dc:identifier>
    <dc:title id="t1">A Small Book</dc:title>
    <meta refines="#t1" property="title-type">main</meta>
    <dc:creator id="c1">Ada Lovelace</dc:creator>
    <meta refines="#c1" property="role" scheme="marc:relators">aut</meta>
    <dc:creator id="c2">Ed Itor</dc:creator>
    <meta refines="#c2" property="role" scheme="marc:relators">edt</meta>
    <dc:creator>Charles Babbage</dc:creator>
    <dc:publisher>Lectern Press</dc:publisher>
    <dc:date>2020-05</dc:date>
    <dc:language>en-GB</dc:language>
    <dc:subject>Testing</dc:subject>
    <dc:description>&lt;p&gt;Some &lt;b&gt;bold&lt;/b&gt; words.&lt;/p&gt;</dc:description>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav/toc.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ch1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="styles/book.css" media-type="text/css"/>
    <item id="img" href="text/../images/cover.png" media-type="image/png" properties="cover-image"/>
  </manifest>
  <spine>
    <itemref idref="ch1"/>
    <itemref idref="ch2"/>
    <itemref idref="nav" linear="no"/>
  </spine>
</package>`,
    'OEBPS/nav/toc.xhtml': xhtml(
      'Contents',
      `<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>
        <li><a href="../text/chapter%201.xhtml">Part One</a>
          <ol>
            <li><a href="../text/chapter%201.xhtml#s1">Section 1.1</a></li>
            <li><a href="../text/chapter%201.xhtml#s2">Section 1.2</a></li>
          </ol>
        </li>
        <li><a href="../text/ch2.xhtml">Part Two</a></li>
      </ol></nav>
      <nav epub:type="landmarks"><ol><li><a href="../text/ch2.xhtml">Not the TOC</a></li></ol></nav>`,
    ),
    'OEBPS/text/chapter 1.xhtml': xhtml(
      'Chapter One',
      `<h1>One</h1><section id="s1"><p>First <img src="../images/cover.png" alt=""/> section.</p></section>
       <section id="s2"><p>Second <a href="ch2.xhtml#end">section</a>.</p></section>`,
      '<link rel="stylesheet" href="../styles/book.css"/>',
    ),
    'OEBPS/text/ch2.xhtml': xhtml('Chapter Two', '<h1>Two</h1><p id="end">The end.</p>'),
    'OEBPS/styles/book.css': 'p { text-indent: 1em; }',
    'OEBPS/images/cover.png': PNG,
  };
  const merged = { ...files, ...overrides };
  const present: Record<string, string | Uint8Array> = {};
  for (const [name, content] of Object.entries(merged)) if (content !== null) present[name] = content;
  return buildZip(present);
}

/**
 * Rewrites the uncompressed size that the central directory declares for `name` (zip layout, APPNOTE 4.3.12:
 * the size at offset 24 of each 46-byte header), to test the zip-bomb guard without inflating gigabytes.
 */
export function declareUncompressedSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  let end = out.length - 22;
  while (view.getUint32(end, true) !== 0x06054b50) end--;
  let offset = view.getUint32(end + 16, true);
  const count = view.getUint16(end + 10, true);
  for (let i = 0; i < count; i++) {
    const nameLength = view.getUint16(offset + 28, true);
    const entryName = new TextDecoder().decode(out.subarray(offset + 46, offset + 46 + nameLength));
    if (entryName === name) view.setUint32(offset + 24, size, true);
    offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return out;
}

/** A two-chapter EPUB 3 (a.xhtml, b.xhtml): the smallest book whose chapters can be flagged apart. */
export function twoChapterBook(): Uint8Array {
  return buildZip({
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0b5e55ed-0000-4000-8000-00000000acc0</dc:identifier>
    <dc:title>Two Chapters</dc:title><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>
    <item id="b" href="b.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="a"/><itemref idref="b"/></spine>
</package>`,
    'a.xhtml': xhtml('One', '<h1>One</h1><p>The sample.</p>'),
    'b.xhtml': xhtml('Two', '<h1>Two</h1><p>Subscribers only.</p>'),
  });
}
