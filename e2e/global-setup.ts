/**
 * Starts the real server for the browser tests the way an operator does on a fresh machine: an empty DATA_DIR, so
 * the first start imports the sample library and prints the demo account, which the tests then sign in with.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { SMTPServer } from 'smtp-server';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type FreshServer, freePort, importBook, startFreshServer } from '../scripts/fresh-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
    demoEmail: string;
    demoPassword: string;
    dataDir: string;
    /** where the suite's SMTP server writes each message the app sends (one .eml file each) */
    mailDir: string;
    /** the scripted origin (SCRIPTED_ORIGIN) of the suite's server: a wildcard below localhost, a host per title (docs/decisions.md "Scripted publications"), where the app is 127.0.0.1 */
    scriptedOrigin: string;
  }
}

/**
 * Writes a small PDF with real text (pdf-lib) and imports it with the operators' command line. Each page has a word
 * of its own (book-search.e2e.ts finds page 3 by "zeppelin").
 */
export const FIELD_MANUAL_PAGE_WORDS = ['lighthouse', 'marmalade', 'zeppelin'];
async function importGeneratedPdf(dataDir: string): Promise<void> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle('Lectern Field Manual');
  doc.setAuthor('The Lectern Team');
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let i = 1; i <= 3; i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Lectern Field Manual, page ${i}`, { x: 60, y: 760, size: 24, font });
    page.drawText('Chapters, playlists and the reader, explained for operators.', { x: 60, y: 720, size: 14, font });
    page.drawText(`This page is about the ${FIELD_MANUAL_PAGE_WORDS[i - 1]} of the library.`, { x: 60, y: 690, size: 14, font });
  }
  const file = path.join(dataDir, 'field-manual.pdf');
  fs.writeFileSync(file, await doc.save());
  importBook(dataDir, file, ['--topic', 'operations']);
}

/** The title of the hostile book (e2e/reader-hostile.e2e.ts finds it by this name). */
const HOSTILE_BOOK_TITLE = 'Hostile Chapter Fixture';

/** What the hostile book's scripts would write if any of them ran (e2e/reader-hostile.e2e.ts looks for it). */
const PWN = (how: string) => `top.__pwned=(top.__pwned||[]).concat('${how}');top.document.title='PWNED ${how}';top.name='pwned';`;

/**
 * An EPUB 3 whose first chapter attacks the reader (DESIGN.md "Reader engine", budgets): inline and external
 * scripts, event handler attributes, javascript: and data: links, frames, objects, a form, a meta refresh, a
 * <base> to another site, and CSS (inline <style>, a style attribute and a linked stylesheet) that hides the body
 * and aims at the app's own toolbar and footer; the second chapter is plain. Imported like the PDF.
 */
async function importHostileEpub(dataDir: string): Promise<void> {
  const { buildZip, CONTAINER_XML, PNG, xhtml } = await import('../packages/server/test/ingest/helpers.ts');
  const hostileCss = [
    '@import url("https://evil.example/import.css");',
    'html { background: red; }',
    'body { display: none; background: red; }',
    '.reader-app, .reader-toolbar, .reader-footer { display: none !important; }',
    '.reader-toolbar { background: red !important; }',
    `#readable { background-image: url("javascript:${PWN('css-url')}"); }`,
  ].join('\n');
  const filler = Array.from({ length: 12 }, (_, i) => `<p>Filler paragraph ${i + 1}: the reader keeps this text on screen, in its own frame, whatever the book's markup tries.</p>`).join('\n');
  const hostileBody = `
<h1 id="top" onclick="${PWN('h1-onclick')}">A hostile chapter</h1>
<p id="readable" style="display:none; position:fixed; inset:0; z-index:2147483647; background:red">HOSTILE-CHAPTER-MARKER This paragraph must stay readable.</p>
<script>${PWN('inline-script')}</script>
<script src="../js/evil.js"></script>
<script type="module">${PWN('module-script')}</script>
<img id="broken" src="../images/missing.png" onerror="${PWN('img-onerror')}" alt="A picture that does not exist"/>
<img id="pixel" src="../images/pixel.png" onload="${PWN('img-onload')}" alt="A one-pixel picture"/>
<p id="clicky" onclick="${PWN('p-onclick')}" onmouseover="${PWN('onmouseover')}">Click this paragraph: nothing may happen.</p>
<p><a id="js-link" href="javascript:${PWN('js-link')}alert('pwned')">A javascript: link</a></p>
<p><a id="js-link-mixed" href=" JaVaScRiPt:${PWN('js-link-mixed')}">A mixed-case javascript: link</a></p>
<p><a id="js-link-tab" href="jav&#x09;ascript:${PWN('js-link-tab')}">A javascript: link with a tab</a></p>
<p><a id="data-link" href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">A data: link</a></p>
<p><a id="external" href="https://example.com/elsewhere">An external site</a></p>
<p><a id="next" href="plain.xhtml">The next chapter</a></p>
<iframe id="inner-frame" src="javascript:${PWN('iframe-src')}"></iframe>
<iframe srcdoc="&lt;script&gt;${PWN('iframe-srcdoc')}&lt;/script&gt;"></iframe>
<object data="../js/evil.js" type="text/html"></object>
<embed src="../js/evil.js"/>
<form action="javascript:${PWN('form')}"><input name="q" value="x"/><button id="form-button" type="submit">Submit</button></form>
<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="${PWN('svg-onload')}"><script>${PWN('svg-script')}</script></svg>
<details open="open" ontoggle="${PWN('ontoggle')}"><summary>Details</summary>Inside the details.</details>
<xmp><img id="xmp-img" src="../images/missing.png" onerror="${PWN('xmp')}"/></xmp>
<noembed><img src="</noembed><img id=noembed-img src=../images/missing.png onerror=top.__pwned=[1]>"/></noembed>
<noscript><p title="</noscript><img id=noscript-img src=../images/missing.png onerror=top.__pwned=[2]>"></p></noscript>
<meta http-equiv="refresh" content="0;url=javascript:${PWN('body-refresh')}"/>
<base href="https://evil.example/"/>
<link rel="stylesheet" href="https://evil.example/remote.css"/>
<style>body { display: none; } .reader-toolbar, .reader-footer { display: none !important; } html { background: red; }</style>
<div style="position:fixed; top:0; left:0; width:100vw; height:100vh; background:red; z-index:99999">A full-page overlay</div>
${filler}`;
  const files: Record<string, string | Uint8Array> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0b5e55ed-0000-4000-8000-00000000e2e0</dc:identifier>
    <dc:title>${HOSTILE_BOOK_TITLE}</dc:title>
    <dc:creator>The Lectern Team</dc:creator>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="hostile" href="text/hostile.xhtml" media-type="application/xhtml+xml" properties="scripted"/>
    <item id="plain" href="text/plain.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="styles/hostile.css" media-type="text/css"/>
    <item id="js" href="js/evil.js" media-type="application/javascript"/>
    <item id="pixel" href="images/pixel.png" media-type="image/png"/>
  </manifest>
  <spine>
    <itemref idref="hostile"/>
    <itemref idref="plain"/>
  </spine>
</package>`,
    'OEBPS/nav.xhtml': xhtml(
      'Contents',
      `<nav epub:type="toc" id="toc"><ol>
        <li><a href="text/hostile.xhtml">A Hostile Chapter</a></li>
        <li><a href="text/plain.xhtml">A Plain Chapter</a></li>
      </ol></nav>`,
    ),
    'OEBPS/text/hostile.xhtml': xhtml(
      'A Hostile Chapter',
      hostileBody,
      `<link rel="stylesheet" href="../styles/hostile.css"/>
<style>body { display: none; } .reader-toolbar { display: none; } html { background: red; }</style>
<script>${PWN('head-script')}</script>
<script src="../js/evil.js"></script>
<meta http-equiv="refresh" content="0;url=javascript:${PWN('head-refresh')}"/>
<base href="https://evil.example/"/>`,
    ).replace('<body>', `<body onload="${PWN('body-onload')}">`),
    'OEBPS/text/plain.xhtml': xhtml('A Plain Chapter', '<h1>A plain chapter</h1><p>Nothing to see here.</p>'),
    'OEBPS/styles/hostile.css': hostileCss,
    'OEBPS/js/evil.js': `${PWN('external-script')}\nparent.postMessage('pwned', '*');`,
    'OEBPS/images/pixel.png': PNG,
  };
  const file = path.join(dataDir, 'hostile.epub');
  fs.writeFileSync(file, buildZip(files));
  importBook(dataDir, file);
}

let fresh: FreshServer | null = null;
let mailSink: SMTPServer | null = null;
let mailFolder: string | null = null;

/**
 * A real SMTP server for the suite: the app sends its emails (a "forgot password" link) through it, and each
 * message is written to a file in `mailDir` for the specs to read, as a reader would open their mailbox. Each file
 * is written under a temporary name and renamed: a spec never reads half a message (e2e/browser.ts `mailbox`).
 */
async function startMailSink(mailDir: string): Promise<string> {
  let count = 0;
  mailSink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // no reverse DNS of 127.0.0.1 before the greeting: on a machine without a resolver that waits 1.5 s a message
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const name = `${String(++count).padStart(4, '0')}.eml`;
        fs.writeFileSync(path.join(mailDir, `${name}.part`), Buffer.concat(chunks));
        fs.renameSync(path.join(mailDir, `${name}.part`), path.join(mailDir, name));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => mailSink!.listen(0, '127.0.0.1', resolve));
  const { port } = (mailSink as unknown as { server: net.Server }).server.address() as net.AddressInfo;
  return `smtp://127.0.0.1:${port}`;
}

export async function setup(project: TestProject): Promise<void> {
  const mailDir = (mailFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-e2e-mail-')));
  const smtpUrl = await startMailSink(mailDir);
  // Titles allowed to run scripts are read on a host name of their own, one per title (e2e/scripted.e2e.ts).
  const scriptedOrigin = `http://*.localhost:${await freePort()}`;
  // SUPPORT_EMAIL: the address the video-failure page points to (e2e/media-navigation.e2e.ts).
  fresh = await startFreshServer({ dataDirPrefix: 'lectern-e2e-', env: { SMTP_URL: smtpUrl, SCRIPTED_ORIGIN: scriptedOrigin, SUPPORT_EMAIL: 'support@lectern.test', BUY_LINK_TEMPLATE: 'https://bookshop.example/search?q={title}' } });
  // A PDF document beside the sample books (which are EPUB 2 and EPUB 3), imported the way an operator does.
  await importGeneratedPdf(fresh.dataDir);
  // A book whose chapter attacks the reader (scripts, handlers, javascript: links, page-wide CSS).
  await importHostileEpub(fresh.dataDir);
  project.provide('baseURL', fresh.base);
  project.provide('demoEmail', fresh.email);
  project.provide('demoPassword', fresh.password);
  project.provide('dataDir', fresh.dataDir);
  project.provide('mailDir', mailDir);
  project.provide('scriptedOrigin', scriptedOrigin);
}

export async function teardown(): Promise<void> {
  await fresh?.stop();
  await new Promise<void>((resolve) => (mailSink ? mailSink.close(() => resolve()) : resolve()));
  if (mailFolder) fs.rmSync(mailFolder, { recursive: true, force: true });
}
