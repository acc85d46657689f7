/**
 * The hostile corpus's entity SVGs opened in Chromium (docs/decisions.md "The attack suite: hostile uploads, the
 * scripted origin and the web app's routes"): SVGs whose script, handler or javascript: link hides in a DOCTYPE entity,
 * SVGs whose entities and DTD are external (file:///etc/passwd, the app's own API), one of them the book's cover
 * (packages/server/test/fixtures/hostile-files.ts `ENTITY_SVG_RESOURCES`). The API tests check the type each is served
 * with; here a browser opens each served file in a tab, as an attacker's link would, and reads the chapter that shows
 * them: nothing runs (no dialog, no marker in the app origin's storage, no request of a payload) and no external entity
 * or DTD expands (no /etc/passwd in any document, no request for one). The one SVG served as an image (namespace
 * entities and an external DTD, as Adobe Illustrator writes them) is parsed by Chromium as SVG, its internal entities
 * expanded, its DTD never fetched.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTITY_SVG_RESOURCES, ENTITY_SVGS_TITLE, entitySvgsEpub, HOSTILE_FETCH_PATH, HOSTILE_MARKER_KEY } from '../packages/server/test/fixtures/hostile-files.ts';
import { hostileBookTab } from './hostile-book.ts';

/** The machine's own first line of /etc/passwd, which an expanded file entity would show. */
const PASSWD_LINE = fs.readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
const SVG_NS = 'http://www.w3.org/2000/svg';

describe('SVGs with entities opened in Chromium', () => {
  const tab = hostileBookTab('entity-svgs.epub', ENTITY_SVGS_TITLE, entitySvgsEpub);
  const { pwnedRequests, dialogs } = tab;
  const marker = () => tab.marker();

  it('opened in a tab, each runs nothing and expands no external entity: as text when not inert, as SVG when inert', async () => {
    const { page, bookId } = tab;
    // The watch sees what it is meant to: a page's own request for the payloads' path is recorded.
    await page.evaluate((probe) => fetch(probe), `${HOSTILE_FETCH_PATH}probe`);
    await expect.poll(() => pwnedRequests.length).toBe(1);
    pwnedRequests.length = 0;
    const opened = ENTITY_SVG_RESOURCES.flatMap((r) => [
      { r, url: `/api/v1/book/${bookId}/chapter/${r.path}` },
      { r, url: `/api/v1/book/${bookId}/chapter/${r.path}?download=1` },
      ...(r.cover ? [{ r, url: `/api/v1/book/${bookId}/cover` }] : []),
    ]);
    const problems: string[] = [];
    for (const { r, url } of opened) {
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status(), url).toBe(200);
      const headers = response!.headers();
      if (!/^sandbox;/.test(headers['content-security-policy'] ?? '')) problems.push(`${url}: not sandboxed`);
      if (!(headers['content-type'] ?? '').startsWith(r.served)) problems.push(`${url}: served as ${headers['content-type']}`);
      const seen = await page.evaluate(
        ({ key, svgNs }) => {
          let stored: string | null;
          try {
            stored = localStorage.getItem(key);
          } catch {
            stored = null; // an opaque origin (the sandbox): no storage of the app's to write to
          }
          const root = document.documentElement;
          return {
            type: document.contentType,
            svg: root?.namespaceURI === svgNs,
            drawn: document.getElementById('drawn') !== null,
            scripts: document.getElementsByTagNameNS('*', 'script').length,
            text: root?.textContent ?? '',
            title: document.title,
            stored,
          };
        },
        { key: HOSTILE_MARKER_KEY, svgNs: SVG_NS },
      );
      if (seen.text.includes(PASSWD_LINE)) problems.push(`${url}: shows /etc/passwd`);
      if (seen.stored !== null) problems.push(`${url}: ran (${seen.stored})`);
      if (seen.title.startsWith('PWNED')) problems.push(`${url}: ran (${seen.title})`);
      if (r.served === 'text/plain') {
        // shown as its own characters: the entity references still there, unexpanded
        if (seen.type !== 'text/plain' || seen.svg || seen.scripts > 0) problems.push(`${url}: parsed as ${seen.type}`);
        if (!seen.text.includes('<!ENTITY') || !/&[a-z]+;/.test(seen.text)) problems.push(`${url}: not its source text`);
      } else {
        // parsed as SVG: the namespace entities expanded (the rectangle is in the SVG namespace), no script
        if (!seen.svg || !seen.drawn || seen.scripts > 0) problems.push(`${url}: not the inert SVG (${JSON.stringify({ ...seen, text: seen.text.slice(0, 80) })})`);
      }
    }
    expect(problems).toEqual([]);
    expect(pwnedRequests).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await marker()).toBeNull();
  });

  it('in the reader, the inert SVG is drawn and nothing of the others runs or fetches', async () => {
    const { page, chapterWebUrl } = tab;
    await page.goto(chapterWebUrl);
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
    const frame = page.frameLocator('iframe.chapter-view__frame');
    const inert = ENTITY_SVG_RESOURCES.findIndex((r) => r.served === 'image/svg+xml');
    await expect.poll(() => frame.locator(`#svg-${inert}`).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    // every other image settles (none drawn: plain text is no image) before the watch is read
    for (const [i] of ENTITY_SVG_RESOURCES.entries()) {
      if (i === inert) continue;
      const img = frame.locator(`img[src$="${ENTITY_SVG_RESOURCES[i]!.path.split('/').pop()}"]`);
      expect(await img.count(), ENTITY_SVG_RESOURCES[i]!.path).toBe(1);
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete), { timeout: 10_000 }).toBe(true);
      expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(0);
    }
    expect(pwnedRequests).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await marker()).toBeNull();
  });
});
