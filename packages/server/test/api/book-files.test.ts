/**
 * A book's own files as the server sends them: whatever a hostile EPUB declares, nothing it holds may be served as
 * a type the app's origin would run (HTML, XHTML, XML, script, scripted SVG), and every file carries a CSP sandbox
 * and nosniff. The same book is opened in Chromium by e2e/book-files.e2e.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FILE_CSP, isInertSvg } from '../../src/plugins/book-files.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { ENTITY_HIDDEN_SVGS } from '../fixtures/hostile.ts';
import { HOSTILE_RESOURCES, hostileFilesEpub, PLAIN_SVG } from '../fixtures/hostile-files.ts';

const EXPECTED_TYPE: Record<string, string> = {
  'extra/page.html': 'text/plain; charset=utf-8',
  'extra/page.xhtml': 'text/plain; charset=utf-8',
  'nav.xhtml': 'text/plain; charset=utf-8',
  'js/evil.js': 'text/plain; charset=utf-8',
  'images/evil.svg': 'text/plain; charset=utf-8',
  'images/cover.svg': 'text/plain; charset=utf-8',
  // Declared a PNG, it stays one: with nosniff the browser never reads the HTML inside as a page.
  'images/fake.png': 'image/png',
  'data/evil.xml': 'text/plain; charset=utf-8',
  'data/evil.xsl': 'text/plain; charset=utf-8',
  'styles/book.css': 'text/css',
  'images/plain.svg': 'image/svg+xml',
  'images/pixel.png': 'image/png',
};

describe.each(ENGINES)('book files on %s', (engine) => {
  let t: TestApp;
  let bookId: string;
  const client = () => new TestClient(t.lectern.app);

  beforeAll(async () => {
    t = await startTestApp(engine);
    bookId = (await t.lectern.services.importer.importBytes(hostileFilesEpub(), 'hostile-files.epub')).book_id;
  });
  afterAll(() => t.close());

  it('serves every file of a hostile book sandboxed, nosniff, and never as a type the origin would run', async () => {
    expect(HOSTILE_RESOURCES.map((r) => r.path).sort()).toEqual(Object.keys(EXPECTED_TYPE).sort());
    for (const r of HOSTILE_RESOURCES) {
      for (const query of ['', '?download=1']) {
        const res = await client().get(`/api/v1/book/${bookId}/chapter/${r.path}${query}`);
        expect(res.statusCode, r.path).toBe(200);
        expect(res.headers['content-type'], r.path).toBe(EXPECTED_TYPE[r.path]);
        expect(res.headers['content-security-policy'], r.path).toBe(BOOK_FILE_CSP);
        expect(res.headers['x-content-type-options'], r.path).toBe('nosniff');
      }
    }
  });

  it('serves a scripted SVG cover as text, sandboxed', async () => {
    const res = await client().get(`/api/v1/book/${bookId}/cover`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(BOOK_FILE_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a range past a file’s end 416 with its size (Content-Range: bytes */size)', async () => {
    const url = `/api/v1/book/${bookId}/chapter/styles/book.css`;
    const size = (await client().get(url)).rawPayload.byteLength;
    const res = await client().get(url, { range: `bytes=${size + 10}-` });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('keeps what the reader frame needs: images, stylesheets', async () => {
    const css = await client().get(`/api/v1/book/${bookId}/chapter/styles/book.css`);
    expect(css.body).toContain('rgb(1, 2, 3)');
    const svg = await client().get(`/api/v1/book/${bookId}/chapter/images/plain.svg`);
    expect(svg.body).toBe(PLAIN_SVG);
  });

  it('the CSP sandboxes the document and lets only images, styles, fonts and media load', () => {
    const directives = new Map(BOOK_FILE_CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    expect(directives.get('sandbox')).toEqual([]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.has('script-src')).toBe(false);
    expect(directives.get('img-src')).toContain("'self'");
    expect(directives.get('style-src')).toContain("'self'");
    expect(directives.get('font-src')).toContain("'self'");
  });
});

describe('SVG verdicts', () => {
  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><a xlink:href="javascript:alert(1)"><rect/></a></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><a href=" JaVa\tScRiPt:alert(1)"><rect/></a></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(1)"/></body></foreignObject></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="javascript:alert(1)"/><rect/></a></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><animate attributeName="href" values="javascript:alert(1)"/></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><image href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"/></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><use href="https://evil.example/x.svg#a"/></svg>'],
    ['<?xml-stylesheet type="text/xsl" href="evil.xsl"?><svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:script>alert(1)</svg:script></svg:svg>'],
    // entities: a browser's XML parser expands them into markup and attribute values the tree here never sees
    ...ENTITY_HIDDEN_SVGS.map((svg) => [svg]),
    ['<!DOCTYPE svg [<!ENTITY x SYSTEM "https://evil.example/x.xml">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>'],
    ['<!DOCTYPE svg [<!ENTITY % p "<!ENTITY s \'&#60;script&#62;alert(1)&#60;/script&#62;\'>"> %p;]><svg xmlns="http://www.w3.org/2000/svg">&s;</svg>'],
    ['<!DOCTYPE svg [<!ENTITY ns "http://www.w3.org/2000/svg">]><svg xmlns="&ns;"><a href="&ns;"><rect/></a></svg>'],
  ])('scripted: %s', (svg) => {
    expect(isInertSvg(svg)).toBe(false);
  });

  it.each([
    [PLAIN_SVG],
    ['<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="cover.jpg" width="10" height="10"/><use href="#a"/></svg>'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,iVBORw0KGgo="/></svg>'],
    ['<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'],
    // Adobe Illustrator's namespace entities, used in namespace declarations only
    [
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY ns_svg "http://www.w3.org/2000/svg"><!ENTITY ns_xlink "http://www.w3.org/1999/xlink">]><svg xmlns="&ns_svg;" xmlns:xlink="&ns_xlink;"><rect width="1" height="1"/></svg>',
    ],
  ])('inert: %s', (svg) => {
    expect(isInertSvg(svg)).toBe(true);
  });
});
