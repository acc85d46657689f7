import { beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { parseEpub } from '../../src/ingest/epub.ts';
import { IngestError, type ParsedTitle } from '../../src/ingest/types.ts';
import {
  buildZip,
  CONTAINER_XML,
  declareUncompressedSize,
  FETCH_TIMEOUT_MS,
  fetchNpmSamples,
  minimalEpub3,
  PNG,
  readBook,
  xhtml,
  type NpmSamples,
} from './helpers.ts';

let samples: NpmSamples;
beforeAll(async () => {
  samples = await fetchNpmSamples();
}, FETCH_TIMEOUT_MS);

function depths(title: ParsedTitle): number[] {
  return [...new Set(title.toc.map((entry) => entry.depth))].sort();
}

function expectIngestError(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(IngestError);
  expect((caught as Error).message).toMatch(message);
}

describe('parseEpub on the real sample books', () => {
  it("reads Alice's Adventures in Wonderland (EPUB 2, one spine file, NCX of depth 3)", () => {
    const book = parseEpub(readBook(samples.alice), 'alice.epub');
    expect(book.source).toBe('application/epub+zip');
    expect(book.title).toBe("Alice's Adventures in Wonderland");
    expect(book.authors).toEqual(['Lewis Carroll']); // the illustrator is a dc:contributor, not an author
    expect(book.identifier).toBe('http://www.gutenberg.org/ebooks/19033');
    expect(book.issued).toBe('2006-08-12'); // opf:event="publication", not the conversion date
    expect(book.language).toBe('en');
    expect(book.subjects).toEqual(['Fantasy', 'Fantasy fiction, English']);
    // Project Gutenberg packed the whole book into one XHTML file; the NCX points into it with fragments.
    expect(book.chapters).toHaveLength(1);
    expect(book.chapters[0]?.label).toBe("ALICE'S ADVENTURES IN WONDERLAND");
    expect(book.chapters[0]?.textLength).toBeGreaterThan(50_000);
    expect(book.toc.length).toBeGreaterThan(10);
    expect(book.toc.every((entry) => entry.fullPath === book.chapters[0]?.fullPath && entry.fragment)).toBe(true);
    expect(depths(book)).toEqual([1, 2, 3]);
    expect(book.toc.find((entry) => entry.label === 'I—DOWN THE RABBIT-HOLE')?.depth).toBe(2);
    expect(book.cover).toMatchObject({ fullPath: 'www.gutenberg.org@files@19033@19033-h@images@cover_th.jpg', mediaType: 'image/jpeg' });
    expect(book.cover?.data.byteLength).toBe(36192);
    const types = book.resources.map((resource) => resource.mediaType);
    expect(types.filter((type) => type === 'image/jpeg')).toHaveLength(28);
    expect(types.filter((type) => type === 'text/css')).toHaveLength(3);
  });

  it('reads The War of the Worlds (EPUB 2, NCX parts and chapters)', () => {
    const book = parseEpub(readBook(samples.worlds), 'testbook.epub');
    expect(book.title).toBe('The War of the Worlds');
    expect(book.authors).toEqual(['H. G. Wells']);
    expect(book.publishers).toEqual(['Feedbooks']);
    expect(book.identifier).toBe('urn:uuid:d4eea036-2147-11e2-963f-001cc0a62c0b'); // the unique-identifier one
    expect(book.issued).toBe('1898');
    expect(book.description).toMatch(/^The War of the Worlds \(1898\), by H\. G\. Wells/);
    expect(book.subjects).toEqual(['Fiction', 'Science Fiction', 'War & Military']);
    expect(book.chapters.length).toBe(35);
    expect(book.chapters.map((chapter) => chapter.fullPath).slice(0, 3)).toEqual(['cover.xml', 'title.xml', 'about.xml']);
    expect(depths(book)).toEqual([1, 2]);
    expect(book.toc.find((entry) => entry.label === 'Chapter 1 - The Eve of the War')).toMatchObject({
      fullPath: 'main2.xml',
      depth: 2,
    });
    expect(book.chapters.find((chapter) => chapter.fullPath === 'main2.xml')?.label).toBe('Chapter 1 - The Eve of the War');
    expect(book.cover).toMatchObject({ fullPath: 'images/cover.png', mediaType: 'image/png' });
    const paths = book.resources.map((resource) => resource.fullPath);
    expect(paths).toEqual(expect.arrayContaining(['css/main.css', 'images/logo-feedbooks.png', 'fb.ncx']));
  });

  it('reads Moby-Dick (EPUB 3, nav TOC, fonts, non-linear cover)', () => {
    const book = parseEpub(readBook(samples.moby), 'moby-dick.epub');
    expect(book.title).toBe('Moby-Dick');
    expect(book.authors).toEqual(['Herman Melville']); // refines role aut; the contributor (mrk) is left out
    expect(book.publishers).toEqual(['Harper & Brothers, Publishers']);
    expect(book.language).toBe('en-US');
    expect(book.chapters.length).toBe(144);
    expect(book.chapters[0]).toMatchObject({ fullPath: 'cover.xhtml', linear: false });
    const first = book.chapters.find((chapter) => chapter.fullPath === 'chapter_001.xhtml');
    expect(first?.label).toBe('Chapter 1. Loomings.');
    expect(first?.rawHtml).toContain('Call me Ishmael.');
    expect(first?.textLength).toBeGreaterThan(10_000);
    // The nav document wins over the NCX; its list is flat.
    expect(book.toc.length).toBe(141);
    expect(depths(book)).toEqual([1]);
    expect(book.cover).toMatchObject({ fullPath: 'images/9780316000000.jpg', mediaType: 'image/jpeg' });
    const types = new Set(book.resources.map((resource) => resource.mediaType));
    expect(types).toEqual(new Set(['application/x-dtbncx+xml', 'application/vnd.ms-opentype', 'image/jpeg', 'text/css']));
  });

  it('forgives and names the rules the real books break', () => {
    const moby = parseEpub(readBook(samples.moby), 'moby-dick.epub');
    expect(moby.warnings).toContain('mimetype is not the first entry of the zip');
    expect(moby.warnings).toContain('mimetype is compressed; it must be stored uncompressed');
    expect(moby.warnings.find((warning) => warning.includes('not in the manifest'))).toContain('OPS/fonts/OCRAStd.otf');

    const worlds = parseEpub(readBook(samples.worlds), 'testbook.epub');
    expect(worlds.warnings).toContain('mimetype has whitespace or a line break around application/epub+zip');

    const alice = parseEpub(readBook(samples.alice), 'alice.epub');
    expect(alice.warnings).toEqual([
      'the cover <meta> names www.gutenberg.org@files@19033@19033-h@19033-h-0.htm, which is not an image',
    ]);
  });

  it('picks the first real chapter as the sample, past covers, notes, About pages and part titles', () => {
    const sampleOf = (book: ParsedTitle) => book.chapters[book.sampleIndex];
    // One file holds the whole book: the chapter is the sample (served bounded, see the catalog API tests).
    expect(sampleOf(parseEpub(readBook(samples.alice), 'alice.epub'))?.label).toBe("ALICE'S ADVENTURES IN WONDERLAND");
    // Guide "text" starts at main0 (a title page) then main1 (a part title); about.xml is Feedbooks' About page.
    expect(sampleOf(parseEpub(readBook(samples.worlds), 'testbook.epub'))).toMatchObject({
      fullPath: 'main2.xml',
      label: 'Chapter 1 - The Eve of the War',
    });
    // The bodymatter landmark: not the transcriber's notes, the etymology or the extracts.
    expect(sampleOf(parseEpub(readBook(samples.moby), 'moby-dick.epub'))).toMatchObject({
      fullPath: 'chapter_001.xhtml',
      label: 'Chapter 1. Loomings.',
    });
  });

  it("keeps the first dc:title, a test id or a slug alike, and never takes a link's or a heading's text for it", () => {
    const opf = new TextDecoder().decode(unzipSync(minimalEpub3())['OEBPS/content.opf']);
    const nav = new TextDecoder().decode(unzipSync(minimalEpub3())['OEBPS/nav/toc.xhtml']);
    // As the W3C EPUB 3 tests are made: the test id as dc:title, "Link to main page" as the only contents entry.
    const book = (titles: string, fileName = 'book.epub') =>
      parseEpub(
        minimalEpub3({
          'OEBPS/content.opf': opf.replace(/<dc:title id="t1">A Small Book<\/dc:title>/, titles),
          'OEBPS/nav/toc.xhtml': nav.replace('>Part One<', '>Link to main page<'),
          'OEBPS/text/chapter 1.xhtml': xhtml('CSS support for font resource in WOFF format', '<h1>A Heading</h1><section id="s1"><p>x</p></section><section id="s2"><p>y</p></section>'),
        }),
        fileName,
      );
    for (const id of ['cnt-css-fonts_woff', 'pkg-title-order', 'lay-fxl-xhtml-icb_units', 'developers-reference']) {
      const parsed = book(`<dc:title id="t1">${id}</dc:title>`, `${id}.epub`);
      expect(parsed.title).toBe(id);
      expect(parsed.warnings.join(' ')).not.toMatch(/title/);
    }
    // The first of several, whichever is refined as main (EPUB 3.3: the first in document order is the title).
    const several = book('<dc:title>First title in package</dc:title><dc:title id="t1">This title must not display first</dc:title>');
    expect(several.title).toBe('First title in package');
    // Empty, or literally the file's name: the next dc:title, else the file name made readable; never the link.
    expect(book('<dc:title id="t1">  </dc:title><dc:title>The Second Title</dc:title>').title).toBe('The Second Title');
    const named = book('<dc:title id="t1">book_of_tests.epub</dc:title>', 'uploads/book_of_tests.epub');
    expect(named.title).toBe('Book of tests');
    expect(named.warnings).toContain('the dc:title "book_of_tests.epub" is the file\'s name; "Book of tests" is used as the title');
    expect(book('', 'Some Book.epub').title).toBe('Some Book');
    // A title that merely contains a file name is a title.
    expect(book('<dc:title id="t1">other.epub</dc:title>').title).toBe('other.epub');
  });

  it('refuses a truncated EPUB', () => {
    const data = readBook(samples.moby);
    expectIngestError(() => parseEpub(data.subarray(0, data.length >> 1), 'moby-dick.epub'), /damaged or truncated/);
  });

  it('refuses a file that is not a zip', () => {
    expectIngestError(() => parseEpub(new TextEncoder().encode('just some text, not a book'), 'x.epub'), /^not a zip archive$/);
    expectIngestError(() => parseEpub(new Uint8Array(0), 'empty.epub'), /^not a zip archive$/);
  });
});

describe('parseEpub on hand-built EPUBs', () => {
  it('reads a minimal EPUB 3 with a nav TOC of depth 2', () => {
    const book = parseEpub(minimalEpub3(), 'small.epub');
    expect(book.warnings).toEqual([]);
    expect(book).toMatchObject({
      identifier: 'urn:uuid:5a1e0c3e-0000-4000-8000-000000000001',
      title: 'A Small Book',
      authors: ['Ada Lovelace', 'Charles Babbage'],
      publishers: ['Lectern Press'],
      issued: '2020-05',
      language: 'en-GB',
      description: 'Some bold words.',
      subjects: ['Testing'],
      pageCount: null,
    });
    expect(book.chapters.map(({ fullPath, label, linear, mediaType }) => ({ fullPath, label, linear, mediaType }))).toEqual([
      { fullPath: 'text/chapter 1.xhtml', label: 'Part One', linear: true, mediaType: 'application/xhtml+xml' },
      { fullPath: 'text/ch2.xhtml', label: 'Part Two', linear: true, mediaType: 'application/xhtml+xml' },
      { fullPath: 'nav/toc.xhtml', label: 'Contents', linear: false, mediaType: 'application/xhtml+xml' },
    ]);
    expect(book.chapters[1]?.textLength).toBe('Two The end.'.length);
    expect(book.toc).toEqual([
      { label: 'Part One', fullPath: 'text/chapter 1.xhtml', fragment: null, depth: 1 },
      { label: 'Section 1.1', fullPath: 'text/chapter 1.xhtml', fragment: 's1', depth: 2 },
      { label: 'Section 1.2', fullPath: 'text/chapter 1.xhtml', fragment: 's2', depth: 2 },
      { label: 'Part Two', fullPath: 'text/ch2.xhtml', fragment: null, depth: 1 },
    ]);
    expect(book.resources.map((resource) => [resource.fullPath, resource.mediaType])).toEqual([
      ['styles/book.css', 'text/css'],
      ['images/cover.png', 'image/png'],
    ]);
    expect(book.cover).toEqual({ fullPath: 'images/cover.png', mediaType: 'image/png', data: PNG });
  });

  it('forgives a book that breaks many rules and says which', () => {
    const data = minimalEpub3({
      mimetype: null,
      'META-INF/container.xml': null,
      '../../evil.xhtml': xhtml('Evil', '<p>outside</p>'),
      'OEBPS/content.opf': `<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="missing">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:title>Broken</dc:title>
    <dc:creator opf:role="aut">A. Writer</dc:creator>
    <dc:creator opf:role="ill">An Illustrator</dc:creator>
    <dc:date opf:event="creation">2001-02-03</dc:date>
    <dc:date opf:event="publication">1999</dc:date>
    <meta name="cover" content="img"/>
  </metadata>
  <manifest>
    <item id="ch1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="TEXT/CH2.XHTML" media-type="application/xhtml+xml"/>
    <item id="gone" href="text/gone.xhtml" media-type="application/xhtml+xml"/>
    <item id="img" href="images/cover.png" media-type="image/png"/>
    <item id="lost" href="images/lost.png" media-type="image/png"/>
    <item id="css" href="styles/book.css"/>
  </manifest>
  <spine>
    <itemref idref="ch1"/>
    <itemref idref="ghost"/>
    <itemref idref="gone"/>
    <itemref idref="img"/>
    <itemref idref="ch2"/>
  </spine>
</package>`,
    });
    const book = parseEpub(data, 'broken.epub');
    expect(book.warnings).toEqual(
      expect.arrayContaining([
        'zip entry ../../evil.xhtml points outside the archive; ignored',
        'the mimetype file is missing',
        'META-INF/container.xml is missing; used the only package file, OEBPS/content.opf',
        'the package\'s unique-identifier "missing" names no dc:identifier',
        'manifest item TEXT/CH2.XHTML is OEBPS/text/ch2.xhtml in the zip (the letter case differs)',
        'manifest item text/gone.xhtml is missing from the zip',
        'manifest item images/lost.png is missing from the zip',
        'manifest item styles/book.css has no media-type; taken as text/css',
        'the spine names "ghost", which is not in the manifest; skipped',
        'spine item text/gone.xhtml is missing from the zip; skipped',
        // An image in the spine is shown as a page of its own (docs/decisions.md "Reading fidelity: the importer's
        // half"), under a chapter path beside it.
        'spine item images/cover.png is image/png, not XHTML, and has no fallback; shown as an image page',
      ]),
    );
    expect(book.title).toBe('Broken');
    expect(book.authors).toEqual(['A. Writer']);
    expect(book.issued).toBe('1999');
    expect(book.identifier).toBeNull();
    // Without a usable TOC for these files, the TOC comes from the spine with the chapters' headings.
    expect(book.chapters.map((chapter) => [chapter.fullPath, chapter.label])).toEqual([
      ['text/chapter 1.xhtml', 'One'],
      ['images/cover.png.xhtml', 'Chapter 2'],
      ['TEXT/CH2.XHTML', 'Two'],
    ]);
    expect(book.toc.map((entry) => [entry.label, entry.depth])).toEqual([
      ['One', 1],
      ['Chapter 2', 1],
      ['Two', 1],
    ]);
    expect(book.cover?.fullPath).toBe('images/cover.png');
    expect(book.resources.map((resource) => resource.fullPath)).toEqual(['images/cover.png', 'styles/book.css']);
  });

  it('moves the package root up when the manifest reaches above the OPF folder', () => {
    const book = parseEpub(
      minimalEpub3({
        'OEBPS/content.opf': `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">x</dc:identifier><dc:title>Up</dc:title></metadata>
  <manifest>
    <item id="ch2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="../shared/book.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="ch2"/></spine>
</package>`,
        'shared/book.css': 'p {}',
      }),
      'up.epub',
    );
    expect(book.chapters.map((chapter) => chapter.fullPath)).toEqual(['OEBPS/text/ch2.xhtml']);
    expect(book.resources.map((resource) => resource.fullPath)).toEqual(['shared/book.css']);
  });

  it('strips a BOM and reads a chapter that is not UTF-8 as Windows-1252', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(xhtml('Two', '<h1>Two</h1>'))]);
    const latin = Uint8Array.from(Buffer.from(xhtml('Chapter One', '<h1>Caf\u00e9 \u201cOne\u201d</h1>'), 'latin1'));
    latin.forEach((byte, index) => {
      if (byte === 0x1c) latin[index] = 0x93; // latin1 cannot encode curly quotes; put Windows-1252's in
      if (byte === 0x1d) latin[index] = 0x94;
    });
    const book = parseEpub(minimalEpub3({ 'OEBPS/text/ch2.xhtml': bom, 'OEBPS/text/chapter 1.xhtml': latin }), 'enc.epub');
    expect(book.chapters[1]?.rawHtml.startsWith('<?xml')).toBe(true);
    expect(book.chapters[0]?.rawHtml).toContain('Café “One”');
    expect(book.warnings).toEqual(['text/chapter 1.xhtml is not valid UTF-8; read as Windows-1252']);
  });

  it('chooses the sample by landmarks, the guide, labels and link density', () => {
    const long = (words: string) => `<p>${`${words} `.repeat(80)}</p>`;
    const book = (spine: [string, string, string][], extraManifest = '', extraPackage = '', files: Record<string, string> = {}) => {
      const manifest = spine.map(([id, file]) => `<item id="${id}" href="${file}" media-type="application/xhtml+xml"/>`).join('');
      const chapters = Object.fromEntries(spine.map(([, file, html]) => [`OEBPS/${file}`, html]));
      return parseEpub(
        buildZip({
          mimetype: 'application/epub+zip',
          'META-INF/container.xml': CONTAINER_XML,
          'OEBPS/content.opf': `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="u">
            <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="u">x</dc:identifier><dc:title>Sampled</dc:title></metadata>
            <manifest>${manifest}${extraManifest}</manifest>
            <spine>${spine.map(([id]) => `<itemref idref="${id}"/>`).join('')}</spine>${extraPackage}</package>`,
          ...chapters,
          ...files,
        }),
        'sampled.epub',
      );
    };
    const chosen = (title: ParsedTitle) => title.chapters[title.sampleIndex]?.fullPath;
    const contents = xhtml('Contents', `<h1>Contents</h1><ol>${'<li><a href="b.xhtml">A chapter with a long name</a></li>'.repeat(30)}</ol>`);
    const notes = xhtml('Notes', `<h1>Transcriber's Notes</h1>${long('a note on the text')}`);
    const body = xhtml('One', `<h1>The Beginning</h1>${long('once upon a time')}`);
    const second = xhtml('Two', `<h1>The Middle</h1>${long('and then')}`);

    // Labels and link density: the contents page and the transcriber's notes are passed over.
    expect(chosen(book([['a', 'a.xhtml', contents], ['n', 'n.xhtml', notes], ['b', 'b.xhtml', body]]))).toBe('b.xhtml');
    // EPUB 3 landmarks: bodymatter starts at c.xhtml although b.xhtml looks like a chapter.
    const nav = xhtml(
      'Nav',
      `<nav epub:type="toc"><ol><li><a href="b.xhtml">B</a></li></ol></nav>
       <nav epub:type="landmarks"><ol><li><a epub:type="bodymatter" href="c.xhtml">Start</a></li></ol></nav>`,
    );
    expect(
      chosen(book([['b', 'b.xhtml', body], ['c', 'c.xhtml', second]], '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>', '', { 'OEBPS/nav.xhtml': nav })),
    ).toBe('c.xhtml');
    // EPUB 2 guide: a page the guide calls a preface is skipped whatever its label.
    expect(chosen(book([['p', 'p.xhtml', body], ['c', 'c.xhtml', second]], '', '<guide><reference type="preface" href="p.xhtml"/></guide>'))).toBe('c.xhtml');
    // Nothing qualifies: the first linear chapter with some text.
    expect(chosen(book([['n', 'n.xhtml', notes]]))).toBe('n.xhtml');
  });

  it('refuses a package without readable chapters', () => {
    const data = minimalEpub3({
      'OEBPS/content.opf': `<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Sounds</dc:title></metadata>
  <manifest><item id="snd" href="images/cover.png" media-type="audio/mpeg"/></manifest>
  <spine><itemref idref="snd"/></spine>
</package>`,
    });
    expectIngestError(() => parseEpub(data, 'sounds.epub'), /^the package has no readable chapters$/);
  });

  it('refuses a zip without a package', () => {
    expectIngestError(
      () => parseEpub(buildZip({ mimetype: 'application/epub+zip', 'readme.txt': 'hello' }), 'x.epub'),
      /^META-INF\/container.xml is missing$/,
    );
    expectIngestError(
      () => parseEpub(buildZip({ 'META-INF/container.xml': CONTAINER_XML }), 'x.epub'),
      /^the package file OEBPS\/content.opf named in META-INF\/container.xml is missing$/,
    );
  });

  it('refuses zip bombs before inflating them', () => {
    const oneHuge = declareUncompressedSize(minimalEpub3({ 'OEBPS/big.bin': PNG }), 'OEBPS/big.bin', 300 * 1024 * 1024);
    expectIngestError(() => parseEpub(oneHuge, 'bomb.epub'), /^the zip archive would inflate to 301 MB, \d+ times its own size \(at most 100 times is accepted\): it looks like a zip bomb$/);

    const parts: Record<string, Uint8Array> = {};
    for (let i = 0; i < 6; i++) parts[`OEBPS/part${i}.bin`] = PNG;
    let many = minimalEpub3(parts);
    for (let i = 0; i < 6; i++) many = declareUncompressedSize(many, `OEBPS/part${i}.bin`, 190 * 1024 * 1024);
    expectIngestError(() => parseEpub(many, 'bomb.epub'), /^the zip archive would inflate to more than 400 MB, the limit for one import$/);
  });
});
