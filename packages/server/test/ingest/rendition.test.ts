/**
 * ingest/rendition.ts: the package's rendition metadata, each itemref's overrides, and the size of a fixed-layout page
 * (viewport meta, SVG viewBox, image headers). The whole book goes through the importer in test/api/fixed-layout.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseXml, parseHtml, findFirst } from '../../src/ingest/markup.ts';
import { documentViewport, imageSize, isDeviceSized, itemRendition, pageViewport, parseViewport, readTitleRendition, REFLOWABLE, storedSide, svgViewport } from '../../src/ingest/rendition.ts';
import { renditionOf } from '../../src/services/rendition.ts';
import { parseEpub } from '../../src/ingest/epub.ts';
import { solidPng } from '../fixtures/fidelity.ts';
import { epubBook } from './helpers.ts';

const pkg = (meta: string) => findFirst(parseXml(`<package><metadata>${meta}</metadata></package>`), 'package')!;

describe('rendition', () => {
  it("reads the package's defaults and leaves what it does not say reflowable", () => {
    const warnings: string[] = [];
    expect(readTitleRendition(pkg(''), (m) => warnings.push(m))).toEqual(REFLOWABLE);
    const fixed = readTitleRendition(
      pkg(`<meta property="rendition:layout"> pre-paginated </meta><meta property="rendition:spread">portrait</meta>
           <meta property="rendition:flow">scrolled-continuous</meta><meta property="rendition:viewport">width=1024, height=768</meta>
           <meta refines="#x" property="rendition:layout">reflowable</meta>`),
      (m) => warnings.push(m),
    );
    // portrait is deprecated and read as both (EPUB 3.3)
    expect(fixed).toEqual({ layout: 'pre-paginated', spread: 'both', flow: 'scrolled-continuous', viewport: { width: 1024, height: 768 } });
    expect(readTitleRendition(pkg('<meta property="rendition:layout">fixed</meta>'), (m) => warnings.push(m)).layout).toBe('reflowable');
    expect(warnings).toEqual(['rendition:layout "fixed" is not reflowable or pre-paginated; read as reflowable']);
  });

  it("applies an itemref's overrides over the package's defaults", () => {
    const title = { ...REFLOWABLE, layout: 'pre-paginated' as const, spread: 'landscape' as const };
    expect(itemRendition(title, [])).toEqual({ layout: 'pre-paginated', spread: 'landscape', flow: 'auto', pageSpread: null, alignXCenter: false });
    // EPUB 3.3 Reading Systems §8.3.2 (W3C lay-reflow-align-x-center)
    expect(itemRendition(REFLOWABLE, ['rendition:align-x-center'])).toMatchObject({ layout: 'reflowable', alignXCenter: true });
    expect(itemRendition(title, ['page-spread-left'])).toMatchObject({ pageSpread: 'left' });
    expect(itemRendition(title, ['rendition:page-spread-right'])).toMatchObject({ pageSpread: 'right' });
    expect(itemRendition(title, ['rendition:page-spread-center'])).toMatchObject({ pageSpread: 'center' });
    expect(itemRendition(title, ['rendition:layout-reflowable', 'rendition:flow-scrolled-doc', 'rendition:spread-none'])).toEqual({
      layout: 'reflowable',
      spread: 'none',
      flow: 'scrolled-doc',
      pageSpread: null,
      alignXCenter: false,
    });
    expect(itemRendition(REFLOWABLE, ['rendition:layout-pre-paginated', 'rendition:spread-bogus', 'rendition:flow-sideways']).layout).toBe('pre-paginated');
    expect(itemRendition(REFLOWABLE, ['rendition:spread-bogus', 'rendition:flow-sideways'])).toMatchObject({ spread: 'auto', flow: 'auto' });
  });

  it('reads viewport sizes as the meta writes them, and nothing that is not a size', () => {
    expect(parseViewport('width=1200, height=1600')).toEqual({ width: 1200, height: 1600 });
    expect(parseViewport('width=1200;height=1600px')).toEqual({ width: 1200, height: 1600 });
    expect(parseViewport('height = 800 , width = 600.4')).toEqual({ width: 600, height: 800 });
    expect(parseViewport('width=1200')).toBeNull();
    expect(parseViewport('width=0, height=10')).toBeNull();
    expect(parseViewport('width=99999999, height=10')).toBeNull();
    const doc = parseHtml('<html><head><meta name="viewport" content="initial-scale=1"/><meta name="Viewport" content="width=500, height=700"/></head><body/></html>');
    expect(documentViewport(doc)).toEqual({ width: 500, height: 700 });
    expect(svgViewport(parseHtml('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1500"></svg>'))).toEqual({ width: 1000, height: 1500 });
    expect(svgViewport(parseHtml('<svg width="320" height="480"></svg>'))).toEqual({ width: 320, height: 480 });
  });

  // W3C epub-tests fxl-spine-overrides_duplicate, lay-fxl-xhtml-icb_repeated-in-meta, lay-fxl-xhtml-icb_units,
  // lay-fxl-xhtml-icb_invalid_meta (docs/conformance.md)
  it('counts the first of repeated overrides and viewport properties, and reads a size with a unit as pixels', () => {
    const fixed = { ...REFLOWABLE, layout: 'pre-paginated' as const };
    expect(itemRendition(fixed, ['rendition:layout-reflowable', 'rendition:layout-pre-paginated']).layout).toBe('reflowable');
    expect(itemRendition(REFLOWABLE, ['rendition:spread-none', 'rendition:spread-both', 'page-spread-left', 'page-spread-right'])).toEqual({
      layout: 'reflowable',
      spread: 'none',
      flow: 'auto',
      pageSpread: 'left',
      alignXCenter: false,
    });
    // a bogus first value does not hide a good second one
    expect(itemRendition(REFLOWABLE, ['rendition:spread-bogus', 'rendition:spread-none']).spread).toBe('none');
    expect(parseViewport('width=900, height=600, width=1000, height=1000')).toEqual({ width: 900, height: 600 });
    expect(parseViewport('width=900, height=600, something, foo')).toEqual({ width: 900, height: 600 });
    expect(parseViewport('width=1000px, height=600mm')).toEqual({ width: 1000, height: 600 });

    const page = (href: string, viewport: string) => ({
      path: href,
      label: href,
      body: '<p>A page.</p>',
      head: `<meta name="viewport" content="${viewport}"/>`,
    });
    const data = epubBook({
      identifier: 'urn:uuid:fxl-overrides',
      title: 'Overrides and viewports',
      chapters: [page('p1.xhtml', 'width=900, height=600, width=1000, height=1000'), page('p2.xhtml', 'width=1000px, height=600mm'), page('p3.xhtml', 'width=900, height=600')],
      files: {
        'content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:fxl-overrides</dc:identifier><dc:title>Overrides and viewports</dc:title><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta><meta property="rendition:layout">pre-paginated</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c0" href="p1.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="p2.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="p3.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c0"/><itemref idref="c1"/><itemref idref="c2" properties="rendition:layout-reflowable rendition:layout-pre-paginated"/></spine>
</package>`,
      },
    });
    const book = parseEpub(data, 'overrides.epub');
    expect(book.chapters.map((c) => [c.rendition?.layout, c.rendition?.viewport])).toEqual([
      ['pre-paginated', { width: 900, height: 600 }],
      ['pre-paginated', { width: 1000, height: 600 }],
      ['reflowable', null],
    ]);
  });

  // W3C epub-tests lay-fxl-xhtml-icb_device_sizes (docs/conformance.md): the page's initial containing block is the
  // device's; the reader sizes it to its stage (docs/decisions.md "Fixed layout and flow").
  it('reads device-width and device-height as the device\'s size, a number beside them as its own', () => {
    expect(parseViewport('width=device-width, height=device-height')).toEqual({ width: 'device', height: 'device' });
    expect(parseViewport('height=device-height; width=device-width')).toEqual({ width: 'device', height: 'device' });
    expect(parseViewport(' width = Device-Width ')).toEqual({ width: 'device', height: 'device' });
    // only one side given as the device's: the other follows the device (a browser's layout viewport would)
    expect(parseViewport('width=device-width, initial-scale=1')).toEqual({ width: 'device', height: 'device' });
    expect(parseViewport('height=device-height')).toEqual({ width: 'device', height: 'device' });
    expect(parseViewport('width=device-width, height=auto')).toEqual({ width: 'device', height: 'device' });
    // a device side beside a number keeps the number
    expect(parseViewport('width=device-width, height=600')).toEqual({ width: 'device', height: 600 });
    expect(parseViewport('width=1000px, height=device-height')).toEqual({ width: 1000, height: 'device' });
    // the first of a repeated property counts, device or not
    expect(parseViewport('width=900, height=600, width=device-width')).toEqual({ width: 900, height: 600 });
    // crossed keywords are not sizes: width=device-height is read as no width
    expect(parseViewport('width=device-height, height=600')).toBeNull();
    expect(isDeviceSized({ width: 'device', height: 600 })).toBe(true);
    expect(isDeviceSized({ width: 900, height: 600 })).toBe(false);
    expect(isDeviceSized(null)).toBe(false);

    // the first viewport meta counts, a device one too
    const doc = parseHtml('<html><head><meta name="viewport" content="width=device-width, height=device-height"/><meta name="viewport" content="width=500, height=700"/></head><body/></html>');
    expect(documentViewport(doc)).toEqual({ width: 'device', height: 'device' });
    // a page's own device size wins over the package's rendition:viewport; the package's may be the device's too
    const title = { ...REFLOWABLE, layout: 'pre-paginated' as const, viewport: { width: 600, height: 800 } };
    expect(pageViewport({ kind: 'document', document: doc, svg: false }, title)).toEqual({ width: 'device', height: 'device' });
    const bare = parseHtml('<html><head></head><body/></html>');
    expect(pageViewport({ kind: 'document', document: bare, svg: false }, { ...title, viewport: parseViewport('width=device-width, height=device-height') })).toEqual({ width: 'device', height: 'device' });
    // an SVG viewBox of nothing is no size (never the stored device marker)
    expect(svgViewport(parseHtml('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 0 0"></svg>'))).toBeNull();
  });

  it('stores a device side as 0 (no real size can be) and gives it back as device; older rows read as before', () => {
    expect([storedSide('device'), storedSide(600), storedSide(undefined)]).toEqual([0, 600, null]);
    const row = (viewport_width: number | null, viewport_height: number | null) => ({ rendition_layout: 'pre-paginated', rendition_spread: 'auto', rendition_flow: 'auto', page_spread: null, viewport_width, viewport_height });
    expect(renditionOf(row(0, 0))?.viewport).toEqual({ width: 'device', height: 'device' });
    expect(renditionOf(row(0, 600))?.viewport).toEqual({ width: 'device', height: 600 });
    expect(renditionOf(row(600, 800))?.viewport).toEqual({ width: 600, height: 800 });
    expect(renditionOf(row(null, null))?.viewport).toBeNull();
    expect(renditionOf(row(600, null))?.viewport).toBeNull();
  });

  it('imports device-sized pages without the "gives no viewport size" warning', () => {
    const page = (href: string, viewport: string) => ({ path: href, label: href, body: '<p>A page.</p>', head: `<meta name="viewport" content="${viewport}"/>` });
    const data = epubBook({
      identifier: 'urn:uuid:fxl-device',
      title: 'Device sizes',
      chapters: [page('p1.xhtml', 'width=device-width, height=device-height'), page('p2.xhtml', 'width=device-width, height=600'), page('p3.xhtml', 'height=device-height')],
      files: {
        'content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:fxl-device</dc:identifier><dc:title>Device sizes</dc:title><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta><meta property="rendition:layout">pre-paginated</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c0" href="p1.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="p2.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="p3.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c0"/><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>`,
      },
    });
    const book = parseEpub(data, 'device.epub');
    expect(book.chapters.map((c) => c.rendition?.viewport)).toEqual([
      { width: 'device', height: 'device' },
      { width: 'device', height: 600 },
      { width: 'device', height: 'device' },
    ]);
    expect(book.warnings.filter((w) => w.includes('viewport'))).toEqual([]);
  });

  it('reads the size of PNG, GIF, JPEG and WebP images from their headers', () => {
    expect(imageSize(solidPng(300, 400), 'image/png')).toEqual({ width: 300, height: 400 });
    const gif = Uint8Array.from([...Buffer.from('GIF89a'), 0x2c, 0x01, 0x90, 0x01, 0, 0, 0, 0]);
    expect(imageSize(gif, 'image/gif')).toEqual({ width: 300, height: 400 });
    // SOI, an APP0 segment of 16 bytes, then SOF0 with height 400 and width 300
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, ...new Array(14).fill(0), 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x90, 0x01, 0x2c, 0x03, ...new Array(12).fill(0)]);
    expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 300, height: 400 });
    // WebP extended (VP8X): canvas width-1 and height-1 as 24-bit little-endian numbers
    const webp = Uint8Array.from([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8X'), 10, 0, 0, 0, 0, 0, 0, 0, 0x2b, 0x01, 0x00, 0x8f, 0x01, 0x00]);
    expect(imageSize(webp, 'image/webp')).toEqual({ width: 300, height: 400 });
    expect(imageSize(Uint8Array.from([1, 2, 3]), 'image/png')).toBeNull();
  });
});
