/**
 * The operators' console (docs/decisions.md "The operators' console, web side") in Chromium at a desktop's and a
 * phone's width, against the built app and the suite's server: a reader is refused; an operator drops two new books and
 * a broken one, watches each bar through the upload (the upload throttled through the DevTools protocol, so the bars
 * are seen moving) and parsing, and reads the refusal's reason; makes a promotion code that a reader redeems, and sees
 * the redemption counted; publishes an announcement a reader finds on the home. Once the titles and dashboard routes
 * are live: edits a title and finds the edit in the catalog, and reads the dashboard's bars drawn from what the test
 * did. axe on every screen, nothing wider than the window; screenshots in .tmp/screens/admin-*.png.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_CONSOLE_MESSAGES, adminPaths, CONSOLE_MESSAGES, HOME_MESSAGES, SUBSCRIPTION_MESSAGES, type AdminDashboard } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli } from '../scripts/fresh-server.ts';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const PASSWORD = 'an operator with a lamp';
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** A new book with a filler file, so that its upload takes a few seconds at the throttled rate. */
function bookFile(dir: string, name: string, title: string): string {
  const filler = new Uint8Array(randomBytes(400_000)); // random: the zip cannot shrink it
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    epubBook({
      identifier: `urn:uuid:${randomUUID()}`,
      title,
      creator: 'Console Tester',
      chapters: [
        { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${title}, the first chapter.</p>` },
        { path: 'two.xhtml', label: 'Two', body: '<h1>Two</h1><p>The second chapter.</p>' },
      ],
      manifest: ['<item id="filler" href="filler.bin" media-type="application/octet-stream"/>'],
      files: { 'filler.bin': filler },
    }),
  );
  return file;
}

describe.each([
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
])('the operators’ console at $label width', ({ label, viewport }) => {
  let browser: Browser;
  let admin: Page;
  let reader: Page;
  const stamp = `${label}${Date.now()}`;
  const adminEmail = `operator-${stamp}@example.com`;
  const readerEmail = `reader-${stamp}@example.com`;
  const contexts = signedInContexts(() => browser);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-console-'));
  const titles = [`Harbour Lights ${stamp}`, `Quiet Engines ${stamp}`];
  const bookIds: string[] = [];
  /** the dashboard before this describe's reader, imports, conversion and search */
  let baseline: AdminDashboard;

  const shot = async (page: Page, name: string) => {
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, `admin-${name}-${label}.png`), fullPage: true });
  };
  const clean = async (page: Page) => {
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  };

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', adminEmail, '--password', PASSWORD, '--role', 'admin', '--status', 'subscriber']);
    browser = await launchBrowser();
    ({ page: admin } = await contexts.open(adminEmail, PASSWORD, viewport));
    baseline = await (await admin.request.get(adminPaths.dashboard())).json();
    lecternCli(inject('dataDir'), ['users:create', '--email', readerEmail, '--password', PASSWORD, '--status', 'trial']);
    ({ page: reader } = await contexts.open(readerEmail, PASSWORD, viewport));
  });
  afterAll(async () => {
    await contexts.closeAll();
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a reader with a page that says why', async () => {
    await reader.goto('/admin/');
    await reader.getByRole('heading', { name: CONSOLE_MESSAGES.refusedTitle }).waitFor();
    await reader.getByText(CONSOLE_MESSAGES.refused).waitFor();
    expect(await reader.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).count()).toBe(0);
    // nor is the console offered in a reader's account menu
    await reader.getByRole('button', { name: /^Account:/ }).click();
    await reader.getByRole('menuitem', { name: 'Your account' }).waitFor();
    expect(await reader.getByRole('menuitem', { name: "Operators' console" }).count()).toBe(0);
    await reader.keyboard.press('Escape');
    await clean(reader);
    await shot(reader, 'refused');
  });

  it('imports two books with their bars through upload and parsing, and refuses a broken one with its reason', async () => {
    const files = [bookFile(dir, `harbour-${stamp}.epub`, titles[0]!), bookFile(dir, `engines-${stamp}.epub`, titles[1]!)];
    const broken = path.join(dir, `broken-${stamp}.epub`);
    fs.writeFileSync(broken, 'this is no zip at all, only words with an .epub name');
    // an operator finds the console in the account menu
    await admin.goto('/home/');
    await admin.getByRole('button', { name: /^Account:/ }).click();
    await admin.getByRole('menuitem', { name: "Operators' console" }).click();
    await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await admin.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).getByRole('link', { name: 'Import' }).click();
    await admin.getByRole('heading', { name: 'Import' }).waitFor();
    await clean(admin);
    // every value each file's bar and phase took, as the page drew them
    await admin.evaluate(() => {
      const seen: Record<string, { phases: string[]; values: number[] }> = {};
      (window as unknown as { __seen: typeof seen }).__seen = seen;
      const record = () => {
        for (const li of Array.from(document.querySelectorAll<HTMLElement>('li[data-phase]'))) {
          const name = li.getAttribute('aria-label') ?? '';
          const s = (seen[name] ??= { phases: [], values: [] });
          const phase = li.dataset.phase!;
          if (s.phases.at(-1) !== phase) s.phases.push(phase);
          const bar = li.querySelector('progress');
          if (bar?.hasAttribute('value')) s.values.push(Number(bar.getAttribute('value')));
        }
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value', 'data-phase'] });
    });
    // the topics field (the command line's --topic): a topic its rule refuses queues nothing and says why
    const topicsField = admin.getByLabel(CONSOLE_MESSAGES.importTopics);
    await topicsField.fill('x'.repeat(81));
    await admin.getByTestId('import-files').setInputFiles([broken]);
    await admin.getByText(ADMIN_CONSOLE_MESSAGES.topicTooLong).waitFor();
    expect(await topicsField.getAttribute('aria-invalid')).toBe('true');
    expect(await admin.locator('li[data-phase]').count()).toBe(0);
    await topicsField.fill(`Harbour Topic ${stamp}, lighthouses`);
    const cdp = await admin.context().newCDPSession(admin);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 150 * 1024 });
    await admin.getByTestId('import-files').setInputFiles([...files, broken]);
    const row = (file: string) => admin.getByRole('listitem', { name: path.basename(file) });
    for (const [i, f] of files.entries()) await row(f).getByText(CONSOLE_MESSAGES.importedAs(titles[i]!, 2)).waitFor({ timeout: 45_000 });
    const refused = admin.locator(`li[data-phase="refused"][aria-label="${path.basename(broken)}"]`);
    await refused.waitFor({ timeout: 30_000 });
    const reason = (await refused.locator('.admin-error').innerText()).trim();
    expect(reason.length).toBeGreaterThan(10);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const seen = await admin.evaluate(() => (window as unknown as { __seen: Record<string, { phases: string[]; values: number[] }> }).__seen);
    for (const f of files) {
      const s = seen[path.basename(f)]!;
      // "Parsing and indexing" lasts from the last byte to the answer: when the answer comes within the same
      // render, React draws only the later phase (seen once at the phone width under load), so it is not required
      expect(s.phases[0]).toBe('waiting');
      expect(s.phases).toContain('uploading');
      expect(s.phases.at(-1)).toBe('imported');
      // the bar was seen part way, not only empty and full
      expect(s.values.some((v) => v > 0 && v < 100), JSON.stringify(s)).toBe(true);
    }
    // sent and refused by the server (its reason), not turned away by the page
    const brokenPhases = seen[path.basename(broken)]!.phases;
    expect(brokenPhases[0]).not.toBe('refused');
    expect(brokenPhases.at(-1)).toBe('refused');
    await clean(admin);
    await shot(admin, 'import');
    for (const f of files) bookIds.push(decodeURIComponent(/\/library\/book\/([^/]+)\//.exec((await row(f).getByRole('link', { name: 'Open the title page' }).getAttribute('href'))!)![1]!));
    // each title has the topics the field gave (the command line names a slug-like topic as a title: Lighthouses)
    for (const id of bookIds) {
      const detail = (await (await admin.request.get(adminPaths.title(id))).json()) as { topics: { name: string }[] };
      expect(detail.topics.map((x) => x.name)).toEqual(expect.arrayContaining([`Harbour Topic ${stamp}`, 'Lighthouses']));
    }
    // the new titles are in the catalog
    const link = row(files[0]!).getByRole('link', { name: 'Open the title page' });
    await link.click();
    await admin.getByRole('heading', { name: titles[0] }).waitFor();
  });

  it('makes a promotion code that a reader redeems, and counts the redemption', async () => {
    const code = `e2e${stamp}`.toLowerCase();
    await admin.goto('/admin/selling/');
    const form = admin.getByRole('form', { name: 'New promotion code' });
    await form.getByLabel('Code', { exact: true }).fill(code);
    await form.getByLabel('Percent', { exact: true }).fill('25');
    await form.getByLabel('Plan', { exact: true }).selectOption('pro');
    await form.getByRole('button', { name: 'Create code' }).click();
    await admin.getByText(CONSOLE_MESSAGES.codeCreated(code)).waitFor();
    const codeRow = admin.locator(`tr[data-code="${code}"]`);
    await codeRow.waitFor();
    expect(await codeRow.innerText()).toMatch(/25% off the pro plan[\s\S]*\b0\b/);
    // a bad amount: the field is named, nothing is made
    await form.getByLabel('Code', { exact: true }).fill(`${code}x`);
    await form.getByLabel('Percent', { exact: true }).fill('250');
    await form.getByRole('button', { name: 'Create code' }).click();
    await form.locator('.field--invalid').getByText(/100/).waitFor();
    expect(await admin.locator(`tr[data-code="${code}x"]`).count()).toBe(0);
    await clean(admin);
    await shot(admin, 'selling');

    await reader.goto('/subscribe/?plan=pro');
    await reader.getByRole('heading', { name: 'Subscribe' }).waitFor();
    await reader.getByLabel('Promotion code').fill(code);
    await reader.getByRole('button', { name: 'Apply' }).click();
    await reader.getByText(SUBSCRIPTION_MESSAGES.codeApplied(code)).waitFor();
    await reader.getByLabel('Country').selectOption('US');
    await reader.getByRole('button', { name: 'Subscribe' }).click();
    await reader.waitForURL('**/u');

    await admin.reload();
    await codeRow.waitFor();
    await expect.poll(async () => (await codeRow.locator('td.num').innerText()).trim()).toBe('1');
  });

  it('publishes an announcement, with the preview, that a reader finds on the home', async () => {
    const message = `Reading week starts Monday (${stamp})`;
    await admin.goto('/admin/engaging/');
    const form = admin.getByRole('form', { name: 'New announcement' });
    await form.getByLabel('Message').fill(message);
    await form.getByLabel('Link (optional)').fill('/live-training/');
    const preview = form.getByRole('group', { name: CONSOLE_MESSAGES.previewHeading });
    await preview.getByText(message).waitFor();
    await clean(admin);
    await shot(admin, 'engaging');
    await form.getByRole('button', { name: 'Publish' }).click();
    await admin.getByText(CONSOLE_MESSAGES.announcementAdded).waitFor();
    await admin.getByRole('list', { name: 'Announcements list' }).getByText(message).waitFor();

    // an editors' pick found by its title, not its book id
    await admin.getByLabel('Find a title to pick').fill(titles[1]!);
    await admin.getByRole('button', { name: 'Find', exact: true }).click();
    await admin.getByRole('button', { name: `Pick ${titles[1]}` }).click();
    await admin.getByRole('list', { name: 'Picks' }).getByText(titles[1]!).waitFor();
    // (not looked for in the home's picks row: the home shows a title in one row only, and a new title is in New)

    await reader.goto('/home/');
    const shown = reader.getByRole('region', { name: HOME_MESSAGES.headings.announcements, exact: true });
    await shown.getByRole('link', { name: message }).waitFor();
    expect(await shown.getByRole('link', { name: message }).getAttribute('href')).toBe('/live-training/');
  });
  it('edits a title, sees the edit in the catalog, and a second operator’s stale save is refused with the reason', async () => {
    const revised = `${titles[0]} (revised)`;
    await admin.goto('/admin/titles/');
    await admin.getByLabel('Search titles, authors or a book id').fill(titles[0]!);
    await admin.getByRole('button', { name: 'Search' }).click();
    await admin.getByRole('link', { name: titles[0] }).click();
    await admin.getByRole('heading', { name: titles[0] }).waitFor();
    // a second operator opens the same title before the first saves
    const other = await admin.context().newPage();
    await other.goto(admin.url());
    await other.getByRole('heading', { name: titles[0] }).waitFor();
    await admin.getByLabel('Title', { exact: true }).fill(revised);
    await admin.getByLabel('Description').fill('A book the console edited.');
    await admin.getByRole('button', { name: 'Save', exact: true }).click();
    await admin.getByRole('heading', { name: revised }).waitFor();
    await admin.getByText(CONSOLE_MESSAGES.saved, { exact: true }).waitFor();
    await clean(admin);
    await shot(admin, 'title');
    await other.getByLabel('Publisher').fill('Stale Press');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await other.getByText(CONSOLE_MESSAGES.versionConflict).waitFor();
    // the first operator's title comes in where this one did not type; this one's publisher stays
    await expect.poll(() => other.getByLabel('Title', { exact: true }).inputValue()).toBe(revised);
    expect(await other.getByLabel('Publisher').inputValue()).toBe('Stale Press');
    await clean(other);
    await shot(other, 'title-conflict');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await other.getByText(CONSOLE_MESSAGES.saved, { exact: true }).waitFor();
    await other.close();
    // a cover from the title's page (the server checks and rewrites it), then seen by a reader
    const png = await sharp({ create: { width: 400, height: 600, channels: 3, background: { r: 30, g: 90, b: 160 } } }).png().toBuffer();
    await admin.getByLabel(CONSOLE_MESSAGES.coverChoose).setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
    await admin.getByRole('button', { name: CONSOLE_MESSAGES.coverUpload }).click();
    await admin.getByText(CONSOLE_MESSAGES.coverSaved).waitFor();
    await expect.poll(() => admin.locator('.admin-cover img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(400);
    await clean(admin);
    await shot(admin, 'title-cover');
    // the catalog shows the edit to a reader
    await reader.goto(`/library/book/${encodeURIComponent(bookIds[0]!)}/`);
    await reader.getByRole('heading', { name: revised }).waitFor();
    await reader.getByText('A book the console edited.').waitFor();
    await reader.getByText('Stale Press').first().waitFor();
    await expect.poll(() => reader.locator('img[src*="/cover"]').first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  });

  it('draws the dashboard from what this test did: accounts, imports, a refusal, a conversion, a search that found nothing', async () => {
    const missing = `zyxqueen${stamp}`.toLowerCase();
    await reader.goto(`/search/?q=${missing}`);
    // visible: a server-rendered search page also holds the query in its <title>, which React leaves in the body
    await reader.getByText(missing).filter({ visible: true }).first().waitFor();
    await admin.goto('/admin/');
    await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const bar = (chart: string) => admin.locator(`figure[data-chart="${chart}"] rect[data-key="${today}"]`);
    const drawn = async (chart: string) => Number(await bar(chart).getAttribute('data-value'));
    await bar('New accounts per day').waitFor({ state: 'attached' });
    const day = baseline.days.find((d) => d.day === today)!;
    expect(await drawn('New accounts per day')).toBe(day.new_accounts + 1);
    expect(await drawn('Files imported per day')).toBe(day.imports + 2);
    expect(await drawn('Imports refused per day')).toBe(day.import_failures + 1);
    expect(await drawn('Trial conversions per day')).toBe(day.trial_conversions + 1);
    // drawn, not only labelled: a bar of a day with something has height
    expect(Number(await bar('Files imported per day').getAttribute('height'))).toBeGreaterThan(0);
    const misses = admin.locator('figure[data-chart="Searches that found nothing"] li').filter({ hasText: missing });
    expect(await misses.getAttribute('data-value')).toBe('1');
    await admin.getByRole('listitem').filter({ hasText: `broken-${stamp}.epub` }).first().waitFor();
    await clean(admin);
    await shot(admin, 'dashboard');
  });

  it('shows the audit log of what this operator did, and the health of the server', async () => {
    await admin.goto('/admin/audit/');
    await admin.getByLabel('Operator’s email').fill(adminEmail);
    await admin.getByRole('button', { name: 'Filter' }).click();
    const entries = admin.getByRole('region', { name: 'Audit entries' });
    await entries.getByText('title.edit').first().waitFor();
    await entries.getByText('promotion-code.create').first().waitFor();
    await entries.getByText('announcement.create').first().waitFor();
    await clean(admin);
    await shot(admin, 'audit');
    await admin.goto('/admin/health/');
    await admin.getByRole('heading', { name: 'Scheduled jobs' }).waitFor();
    await clean(admin);
    await shot(admin, 'health');
  });
  it('finds the reader under People, sees the conversion, and ends their sessions', async () => {
    await admin.goto('/admin/people/');
    await admin.getByLabel('Search by email or name').fill(readerEmail);
    await admin.getByRole('button', { name: 'Search' }).click();
    await admin.getByRole('link', { name: readerEmail }).click();
    await admin.getByRole('heading', { name: readerEmail }).waitFor();
    const facts = admin.locator('.admin-facts');
    await facts.getByText('subscriber', { exact: true }).waitFor();
    await facts.getByText('pro', { exact: true }).waitFor();
    await clean(admin);
    await shot(admin, 'person');
    await admin.getByRole('button', { name: 'End all sessions' }).click();
    await admin.getByText(/\d+ sessions? ended\./).waitFor();
    // the reader's browser is signed out: the account page sends it to sign in
    await reader.goto('/u');
    await reader.waitForURL(/\/login\//);
  });

  // Last, and also so that the suite's shared library holds no more titles than before this file (the catalog's
  // first page is read by other files): the titles this describe imported are retired, and stay readable by address.
  it('retires the titles it imported: out of the catalog, still open by their address', async () => {
    for (const id of bookIds) {
      await admin.goto(`/admin/titles/${encodeURIComponent(id)}`);
      await admin.getByRole('button', { name: 'Retire this title' }).click();
      await admin.getByText(CONSOLE_MESSAGES.retired).waitFor();
      await admin.getByRole('button', { name: 'Bring back to the catalog' }).waitFor();
    }
    await clean(admin);
    const listed = async () => {
      const res = await reader.request.get(`/api/v1/book/?page_size=100&sort=recent`);
      return ((await res.json()).results as { title: string }[]).map((b) => b.title).filter((t) => t.includes(stamp));
    };
    await expect.poll(listed).toEqual([]);
    await reader.goto(`/library/book/${encodeURIComponent(bookIds[1]!)}/`);
    await reader.getByRole('heading', { name: titles[1] }).waitFor();
  });
});
