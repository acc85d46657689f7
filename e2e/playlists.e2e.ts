/**
 * Playlists in the browser against the real server and the sample library (library-playlists-account.md §2, §4):
 * a playlist made from a title card's menu, one-click add and remove, the topic filter, edit, rename, duplicate
 * and delete, and the queue toggle. The demo account starts with only its empty queue, so every test makes what
 * it needs, with names of its own.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { imagesSettled, launchBrowser, painted, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const run = Date.now().toString(36);
const unique = (label: string) => `${label} ${run}-${Math.random().toString(36).slice(2, 6)}`;

interface Book {
  api_url: string;
  title: string;
  topics: { name: string; slug: string }[];
}
interface Playlist {
  id: string;
  name: string;
  is_default: boolean;
  content: { api_url: string; metadata: { topics: { name: string; slug: string }[] } }[];
}

/** The server's API with the session of the browser context: for setting up what a test starts from. */
function apiOf(context: BrowserContext, page: Page) {
  const headers = async () => ({
    'x-csrftoken': (await context.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '',
    origin: baseURL,
    accept: 'application/json; version=v2',
  });
  return {
    books: async (): Promise<Book[]> => (await (await page.request.get('/api/v1/book/?page_size=50')).json()).results,
    create: async (name: string, description = ''): Promise<Playlist> => {
      const r = await page.request.post('/nest/api/api/v2/collections/', { headers: await headers(), data: { name, description } });
      expect(r.status()).toBe(201);
      return r.json();
    },
    add: async (id: string, content: string[]): Promise<Playlist> => {
      const r = await page.request.post(`/nest/api/api/v2/collections/${id}/add-content/`, { headers: await headers(), data: { content } });
      expect(r.status()).toBe(200);
      return r.json();
    },
    queueAdd: async (urls: string[]) => expect((await page.request.post('/api/v1/queue-simple/', { headers: await headers(), data: urls })).status()).toBe(200),
    queueRemove: async (urls: string[]) => expect((await page.request.delete('/api/v1/queue-simple/', { headers: await headers(), data: urls })).status()).toBe(200),
    list: async (): Promise<Playlist[]> => (await page.request.get('/nest/api/api/v2/collections/', { headers: { accept: 'application/json; version=v2' } })).json(),
  };
}

/** The title card of a book in the current grid. */
const cardOf = (page: Page, title: RegExp | string) => page.getByRole('article').filter({ has: page.getByRole('heading', { name: title }) });

/** Opens the playlist menu of a card (its label says whether the title is in a playlist already). */
async function openMenu(card: Locator) {
  await card.getByRole('button', { name: /^Add(ed)? to Playlist$/ }).click();
  await card.getByRole('menu').waitFor();
}

describe('playlists', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let api: ReturnType<typeof apiOf>;
  let books: Book[];

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/login/');
    await page.getByLabel('Email').fill(inject('demoEmail'));
    await page.getByLabel('Password').fill(inject('demoPassword'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/home\/$/);
    api = apiOf(context, page);
    books = await api.books();
    expect(books.length).toBeGreaterThanOrEqual(3);
  });
  afterAll(() => browser?.close());

  it('sends a signed-out visitor to sign in first', async () => {
    const anonymous = await browser.newContext({ baseURL });
    const p = await anonymous.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto('/c/');
    await p.waitForURL(/\/login\/\?next=%2Fc%2F/);
    await p.getByText('Please log in to continue.').waitFor();
    await anonymous.close();
  });

  it('creates a playlist from a title card menu: the modal, its success message and the link', async () => {
    const book = books.find((b) => /Moby/.test(b.title))!;
    const name = unique('Sea voyages');
    await page.goto('/library/');
    const card = cardOf(page, book.title);
    await openMenu(card);
    await card.getByRole('menuitem', { name: 'Add to a new playlist' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create new playlist' });
    await dialog.waitFor();
    const nameField = dialog.getByLabel('Name your new playlist');
    expect(await nameField.inputValue()).toBe('New playlist');
    expect(await dialog.getByLabel(/\(optional\)/).count()).toBe(1);
    expect(await page.evaluate(() => document.body.classList.contains('modal-active'))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await nameField.fill(name);
    await dialog.getByLabel(/\(optional\)/).fill('Whales, ships and the open sea');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const link = dialog.getByRole('link', { name: `Visit ${name}` });
    await link.waitFor();
    expect(await dialog.getByRole('status').textContent()).toBe(`New playlist created with your book. Visit ${name}`);
    await dialog.getByRole('button', { name: 'Create another playlist' }).waitFor();

    await link.click();
    await page.waitForURL(/\/c\/collection\/[^/]+\/$/);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    expect(await page.evaluate(() => document.body.classList.contains('modal-active'))).toBe(false);
    await page.getByText('Whales, ships and the open sea').waitFor();
    await page.getByText(`1 item in ${name}`).waitFor();
    await cardOf(page, book.title).waitFor();
    const nav = page.getByRole('navigation', { name: 'Your playlists' });
    expect(await nav.getByRole('link', { name: new RegExp(name) }).getAttribute('aria-current')).toBe('page');
  });

  it('adds a title to a playlist and removes it again with one click each', async () => {
    // '0 …' sorts right after the queue, so the dropdown shows it whatever order the list comes in
    const name = unique('0 One click');
    await api.create(name);
    const book = books.find((b) => /War of the Worlds/.test(b.title))!;
    await page.goto('/library/');
    const card = cardOf(page, book.title);
    await openMenu(card);
    const entry = card.getByRole('menuitemcheckbox', { name });
    expect(await entry.getAttribute('aria-checked')).toBe('false');
    await entry.click();
    await expect.poll(() => entry.getAttribute('aria-checked')).toBe('true');
    await expect.poll(async () => (await api.list()).find((p) => p.name === name)?.content.map((i) => i.api_url)).toEqual([book.api_url]);
    await page.keyboard.press('Escape');
    await card.getByRole('button', { name: 'Added to Playlist' }).waitFor();

    await openMenu(card);
    // holders come first
    expect(await card.getByRole('menuitemcheckbox').first().textContent()).toContain(name);
    await card.getByRole('menuitemcheckbox', { name }).click();
    await expect.poll(() => card.getByRole('menuitemcheckbox', { name }).getAttribute('aria-checked')).toBe('false');
    await expect.poll(async () => (await api.list()).find((p) => p.name === name)?.content.length).toBe(0);
    await page.keyboard.press('Escape');
  });

  it('filters a playlist by topic', async () => {
    const alice = books.find((b) => /Alice/.test(b.title))!;
    const moby = books.find((b) => /Moby/.test(b.title))!;
    const name = unique('Topic filter');
    const created = await api.create(name, 'Two books, different topics');
    const filled = await api.add(created.id, [alice.api_url, moby.api_url]);
    const topicsOf = (url: string) => filled.content.find((i) => i.api_url === url)!.metadata.topics;
    const only = topicsOf(moby.api_url).find((t) => !topicsOf(alice.api_url).some((a) => a.slug === t.slug))!;
    expect(only).toBeTruthy();

    await page.goto(`/c/collection/${created.id}/`);
    await page.getByText(`2 items in ${name}`).waitFor();
    await expect.poll(() => page.getByRole('article').count()).toBe(2);
    const bar = page.getByRole('navigation', { name: 'Filter by topic' });
    expect(await bar.getByRole('link', { name: /^All/ }).getAttribute('aria-current')).toBe('page');
    const more = bar.getByRole('button', { name: 'More topics' });
    if (!(await bar.getByRole('link', { name: new RegExp(`^${only.name}`) }).count())) await more.click();
    await bar.getByRole('link', { name: new RegExp(`^${only.name}`) }).click();
    await page.waitForURL(new RegExp(`/c/collection/${created.id}/topic/${only.slug}/$`));
    await page.getByText(`1 item in ${only.name}`).waitFor();
    await expect.poll(() => page.getByRole('article').count()).toBe(1);
    await cardOf(page, moby.title).waitFor();
    expect(await bar.getByRole('link', { name: new RegExp(`^${only.name}`) }).getAttribute('aria-current')).toBe('page');

    await bar.getByRole('link', { name: /^All/ }).click();
    await page.waitForURL(new RegExp(`/c/collection/${created.id}/$`));
    await expect.poll(() => page.getByRole('article').count()).toBe(2);
  });

  it('edits and renames, duplicates as "Copy of …", and deletes after the confirm dialog', async () => {
    const book = books[0]!;
    const name = unique('Rename me');
    const created = await api.create(name, 'Before the edit');
    await api.add(created.id, [book.api_url]);

    await page.goto(`/c/collection/${created.id}/`);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await page.getByRole('toolbar').getByRole('button', { name: 'Edit' }).click();
    await page.waitForURL(`**/c/edit-collection/${created.id}/`);
    const nameField = page.getByRole('textbox', { name: 'Name' });
    expect(await nameField.inputValue()).toBe(name);
    expect(await seriousViolations(page)).toEqual([]);

    // live validation: the queue's name is taken
    await nameField.fill('queue');
    await page.getByText("Oops! You've already used this name.").waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    const renamed = unique('Renamed');
    await nameField.fill(renamed);
    await page.getByRole('textbox', { name: /Description/ }).fill('After the edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Changes saved').waitFor();
    await page.waitForURL(`**/c/collection/${created.id}/`);
    await page.getByRole('heading', { level: 1, name: renamed }).waitFor();
    await page.getByText('After the edit').waitFor();

    await page.getByRole('toolbar').getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.waitForURL((u) => /\/c\/edit-collection\/[^/]+\/$/.test(u.pathname) && !u.pathname.includes(`/${created.id}/`));
    const copyName = `Copy of ${renamed}`;
    await expect.poll(() => nameField.inputValue()).toBe(copyName);
    await page.getByText('1 item', { exact: true }).waitFor();
    const copy = (await api.list()).find((p) => p.name === copyName)!;
    expect(copy.content.map((i) => i.api_url)).toEqual([book.api_url]);

    // Delete asks first; Cancel keeps the playlist
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete playlist' });
    await dialog.getByText('Are you sure you want to delete this playlist? This action cannot be undone.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete');

    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/c\/$/);
    await page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Your playlists' });
    await nav.getByRole('link', { name: new RegExp(renamed) }).first().waitFor();
    await expect.poll(() => nav.getByRole('link', { name: new RegExp(`^${copyName}`) }).count()).toBe(0);
    expect((await api.list()).some((p) => p.id === copy.id)).toBe(false);
  });

  it('toggles the queue with its overlay and feedback banner', async () => {
    const book = books.find((b) => /Alice/.test(b.title))!;
    await page.goto('/library/');
    const card = cardOf(page, book.title);
    const add = card.getByRole('button', { name: 'Add to Queue' });
    await add.waitFor();
    expect(await add.getAttribute('aria-pressed')).toBe('false');
    await add.click();
    await card.locator('.queue-overlay').getByText('Adding to your queue...').waitFor();
    await card.locator('.queue-banner').getByText('Added to your queue').waitFor();
    const remove = card.getByRole('button', { name: 'Remove from Queue' });
    expect(await remove.getAttribute('aria-pressed')).toBe('true');
    // the banner goes after about 1.2 s
    await card.locator('.queue-banner').waitFor({ state: 'detached', timeout: 3000 });

    // the queue is the default playlist: /c/ shows it
    await page.getByRole('link', { name: 'Playlists' }).click();
    await page.waitForURL(/\/c\/$/);
    await cardOf(page, book.title).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const inQueue = cardOf(page, book.title);
    await inQueue.getByRole('button', { name: 'Remove from Queue' }).click();
    await inQueue.locator('.queue-overlay').getByText('Removing from your queue...').waitFor();
    // the card stays while its banner shows, then leaves the (now empty) queue
    await inQueue.locator('.queue-banner').getByText('Removed from your queue').waitFor();
    // the empty queue names its own control, with that control's icon where the spec's '...' stands
    const empty = page.getByText('Start exploring! You can add any title to this playlist just by tapping the queue icon.');
    await empty.waitFor();
    expect(await empty.locator('.empty-state__inline-icon svg').count()).toBe(1);
    await page.screenshot({ path: '/tmp/shelves-empty-queue-1280.png' });
    await expect.poll(async () => (await page.request.get('/api/v1/queue-simple/')).json().then((q: { results: { url: string }[] }) => q.results.map((r) => r.url))).not.toContain(book.api_url);
  });

  it('stacks the playlist menu above the next card, so a title can be taken out of a playlist with a pointer', async () => {
    const picked = books.slice(0, 3);
    const name = unique('Stacking');
    const created = await api.create(name);
    await api.add(created.id, picked.map((b) => b.api_url));
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const sized = await browser.newContext({ baseURL, viewport, storageState: await context.storageState() });
      const p = await sized.newPage();
      p.setDefaultTimeout(15_000);
      await p.goto(`/c/collection/${created.id}/`);
      await expect.poll(() => p.getByRole('article').count(), { timeout: 15_000 }).toBe(3);
      const first = p.getByRole('article').first();
      // the first card near the top, so the menu opens downwards over what follows it
      await expect
        .poll(async () => {
          await first.evaluate((el) => el.scrollIntoView({ block: 'start' }));
          await imagesSettled(p);
          // where the card is once the page has settled (covers and the list's figures arrive after the first render)
          return first.evaluate((el) => Math.round(el.getBoundingClientRect().top));
        })
        .toBeLessThan(150);
      await openMenu(first);
      // The card back at the top should the page have moved under the click (seen in full runs, cause unknown; noted
      // in the issue): the open menu follows its button, and the check below is about stacking, not scrolling.
      await first.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await painted(p);
      await p.screenshot({ path: `/tmp/shelves-menu-${viewport.width}.png` });
      // Every item of the open menu is what a pointer at its centre hits, and some of them lie over the next card.
      const hits = await p.evaluate(() => {
        const items = Array.from(document.querySelectorAll<HTMLElement>('[role="menu"] [role^="menuitem"]'));
        const cards = Array.from(document.querySelectorAll<HTMLElement>('.title-grid > li')).slice(1);
        return items.map((item) => {
          const r = item.getBoundingClientRect();
          const x = r.left + r.width / 2;
          const y = r.top + r.height / 2;
          const hit = document.elementFromPoint(x, y);
          const overCard = cards.some((c) => {
            const cr = c.getBoundingClientRect();
            return x >= cr.left && x <= cr.right && y >= cr.top && y <= cr.bottom;
          });
          return { label: item.textContent, ok: !!hit && item.contains(hit), overCard };
        });
      });
      expect(hits.filter((h) => !h.ok)).toEqual([]);
      if (viewport.width < 500) expect(hits.some((h) => h.overCard)).toBe(true);
      if (viewport.width < 500) {
        // the pointer takes the first title out of the playlist
        const entry = first.getByRole('menuitemcheckbox', { name });
        await entry.click({ timeout: 3000 });
        await expect.poll(async () => (await api.list()).find((x) => x.id === created.id)?.content.length).toBe(2);
      }
      await sized.close();
    }
  });

  it('keeps the queue in the order the reader sets with the move buttons (keyboard too) and drag and drop', async () => {
    const [a, b, c] = books.slice(0, 3).map((x) => x.api_url) as [string, string, string];
    // An empty queue to start from: a title left in it by an earlier test would keep its place (re-adding does not
    // move an item), and the order below would not be the one this test sets.
    const queued = (await api.list()).find((x) => x.is_default)?.content.map((x) => x.api_url) ?? [];
    if (queued.length) await api.queueRemove(queued);
    await api.queueAdd([a, b, c]);
    try {
      await page.goto('/c/');
      const order = () => page.locator('[data-reorder-item]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.reorderItem));
      await expect.poll(order).toEqual([a, b, c]);
      const item = (url: string) => page.locator(`[data-reorder-item="${url}"]`);
      const titleOf = (url: string) => books.find((x) => x.api_url === url)!.title;

      await item(c).getByRole('button', { name: `Move ${titleOf(c)} up` }).click();
      await expect.poll(order).toEqual([a, c, b]);
      // the keyboard path: focus stays on the moved title's button, Enter moves it again
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Move ${titleOf(c)} up`);
      await page.keyboard.press('Enter');
      await expect.poll(order).toEqual([c, a, b]);
      // focus moves to "down" once "up" is disabled at the top
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Move ${titleOf(c)} down`);

      // a pointer drag by the handle onto the first title (several moves: the page hears dragover more than once)
      await item(b).locator('.reorder-bar__handle').hover();
      await page.mouse.down();
      const target = (await item(c).locator('.title-card__media').boundingBox())!;
      for (const step of [0.2, 0.5, 0.8, 1]) await page.mouse.move(target.x + (target.width / 2) * step, target.y + (target.height / 2) * step, { steps: 3 });
      await page.mouse.up();
      await expect.poll(order).toEqual([b, c, a]);
      await expect.poll(async () => (await (await page.request.get('/api/v1/queue-simple/')).json()).results.map((r: { url: string }) => r.url)).toEqual([b, c, a]);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: '/tmp/shelves-queue-1280.png', fullPage: true });

      // a fresh browser context (nothing cached) shows the same order
      const fresh = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, storageState: { cookies: (await context.storageState()).cookies, origins: [] } });
      const p = await fresh.newPage();
      p.setDefaultTimeout(15_000);
      await p.goto('/c/');
      // a new context loads every chunk afresh: as long as the page's own timeout on a busy machine
      await expect.poll(() => p.locator('[data-reorder-item]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.reorderItem)), { timeout: 15_000 }).toEqual([b, c, a]);
      await p.screenshot({ path: '/tmp/shelves-queue-390.png', fullPage: true });
      await fresh.close();
    } finally {
      await api.queueRemove([a, b, c]);
    }
  });

  it('draws generated covers without a link underline and without words broken mid-letters', async () => {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      const sized = await browser.newContext({ baseURL, viewport, storageState: await context.storageState() });
      const p = await sized.newPage();
      p.setDefaultTimeout(15_000);
      // The catalog as the server sends it, but with a title of long words without a cover, and one cover
      // image that is a landscape banner: what real libraries hold.
      const LONG = 'Internationalization and Containerization Handbook';
      const BANNER = '/test-landscape-banner.svg';
      let bannerTitle = '';
      await p.route(
        (url) => url.pathname === '/api/v1/book/',
        async (route) => {
          const response = await route.fetch();
          const body = await response.json();
          const results = body.results as { title: string; cover_image_url: string | null }[];
          const bare = results.find((r) => !r.cover_image_url);
          if (bare) bare.title = LONG;
          const covered = results.find((r) => r.cover_image_url);
          if (covered) {
            covered.cover_image_url = BANNER;
            bannerTitle = covered.title;
          }
          await route.fulfill({ response, json: body });
        },
      );
      await p.route(`**${BANNER}*`, (route) =>
        route.fulfill({
          contentType: 'image/svg+xml',
          body: '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="240"><rect width="900" height="240" fill="#345"/><text x="450" y="140" font-size="64" text-anchor="middle" fill="#fff">BANNER</text></svg>',
        }),
      );
      // an address whose page brings no first answers (routes/web.ts), so the catalog asks and the route above sees it
      await p.goto('/library/?sort=title');
      await p.locator('.cover--typographic').first().waitFor();
      await p.getByRole('img', { name: LONG }).waitFor();
      // the banner is shown whole, not cut to a meaningless middle strip
      const banner = p.getByRole('img', { name: bannerTitle, exact: true }).first();
      await expect.poll(() => banner.evaluate((img) => getComputedStyle(img).objectFit)).toBe('contain');
      const problems = await p.evaluate(() => {
        const found: string[] = [];
        for (const cover of Array.from(document.querySelectorAll<HTMLElement>('.cover--typographic'))) {
          const name = cover.getAttribute('aria-label');
          // Text decorations reach in-flow descendants; an atomic inline (inline-block/flex) or out-of-flow box stops them.
          for (let el: HTMLElement | null = cover; el; el = el.parentElement) {
            const style = getComputedStyle(el);
            if (style.textDecorationLine !== 'none') found.push(`${name}: underlined by <${el.tagName.toLowerCase()}>`);
            if (/^inline-/.test(style.display) || style.position === 'absolute' || style.position === 'fixed' || style.float !== 'none') break;
          }
          // every word of the title sits on one line (one box), unless the line clamp hid it
          const title = cover.querySelector<HTMLElement>('.cover__title')!;
          const box = title.getBoundingClientRect();
          const text = title.firstChild as Text;
          for (const match of text.data.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(text, match.index);
            range.setEnd(text, match.index + match[0].length);
            const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.top < box.bottom - 1);
            if (rects.length > 1) found.push(`${name}: "${match[0]}" broken over ${rects.length} lines`);
            if (rects.some((r) => r.right > box.right + 1)) found.push(`${name}: "${match[0]}" runs out of the cover`);
          }
        }
        return found;
      });
      await p.screenshot({ path: `/tmp/shelves-covers-${viewport.width}.png`, fullPage: true });
      expect(problems).toEqual([]);
      await sized.close();
    }
  });

  it('has a real search in the header, and on a phone links to the catalog and the search page where the navigation folds away', async () => {
    await page.goto('/library/');
    const header = page.getByRole('banner');
    await header.getByRole('link', { name: 'Library' }).waitFor();
    expect(await header.getByRole('combobox', { name: 'Search the library' }).isVisible()).toBe(true);
    expect(await header.getByRole('link', { name: 'Browse the library' }).isVisible()).toBe(false);

    const phone = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    const p = await phone.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto('/c/');
    // (the app renders after the page's load event: its first render is sliced, renderApp.ts)
    await p.getByRole('banner').getByRole('link', { name: 'Search the library' }).waitFor();
    expect(await p.getByRole('banner').getByRole('link', { name: 'Search the library' }).isVisible()).toBe(true);
    // The logo leads home on a phone (the browse link gives way below 480 px).
    await p.getByRole('banner').getByRole('link', { name: 'Lectern' }).click();
    await p.waitForURL(/\/home\/$/);
    await phone.close();
  });

  it('shows the playlists page on a phone with a select box for the library navigation', async () => {
    const phone = await browser.newContext({ baseURL, viewport: { width: 375, height: 812 }, storageState: await context.storageState() });
    const p = await phone.newPage();
    p.setDefaultTimeout(15_000);
    const name = unique('Phone list');
    const created = await api.create(name);
    await p.goto('/c/');
    const select = p.getByRole('combobox', { name: 'Playlist' });
    await select.waitFor();
    expect(await p.getByRole('navigation', { name: 'Your playlists' }).isVisible()).toBe(false);
    await select.selectOption(created.id);
    await p.waitForURL(`**/c/collection/${created.id}/`);
    await p.getByRole('heading', { level: 1, name }).waitFor();
    expect(await seriousViolations(p)).toEqual([]);
    await phone.close();
  });
});

describe('playlists: no keyboard trap, the light list', () => {
  let browser: Browser;
  const password = 'a long enough password';
  const newReader = (label: string) => {
    const email = `${label}-${run}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    return email;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`the create dialog traps no key: Tab leaves the description, Escape with typed text asks first (${viewport.width} px)`, async () => {
      const context = await browser.newContext({ baseURL, viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, newReader('dialog'), password);
      const card = page.getByRole('article').first();
      await openMenu(card);
      await card.getByRole('menuitem', { name: 'Add to a new playlist' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create new playlist' });
      await dialog.waitFor();
      expect(await page.getByText(/Escape, then Tab/).count()).toBe(0);
      const description = dialog.getByLabel(/\(optional\)/);
      await description.fill('Books for the train');
      await description.press('Tab');
      // focus moved on to the next control of the dialog; no tab character was typed
      expect(await description.inputValue()).toBe('Books for the train');
      expect(await description.evaluate((el) => el === document.activeElement)).toBe(false);
      expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      await page.keyboard.press('Shift+Tab');
      expect(await description.evaluate((el) => el === document.activeElement)).toBe(true);

      // Escape with unsaved text asks; Escape in the question goes back to what was typed
      await page.keyboard.press('Escape');
      const ask = page.getByRole('alertdialog', { name: 'Discard what you typed?' });
      await ask.waitFor();
      expect(await dialog.isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `/tmp/shelves-discard-${viewport.width}.png` });
      await page.keyboard.press('Escape');
      await ask.waitFor({ state: 'detached' });
      expect(await description.inputValue()).toBe('Books for the train');
      // asked again, Discard closes the dialog
      await description.press('Escape');
      await ask.getByRole('button', { name: 'Discard' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.body.classList.contains('modal-active'))).toBe(false);
      await context.close();
    });
  }

  it('a reader with 51 playlists of 100 items: a signed-in page loads names and counts, a playlist page its own items, never every item (1280 and 390 px)', async () => {
    const email = newReader('many');
    const setup = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    const s = await setup.newPage();
    s.setDefaultTimeout(15_000);
    await signIn(s, email, password);
    const headers = async () => ({
      'x-csrftoken': (await setup.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '',
      origin: baseURL,
      accept: 'application/json; version=v2',
    });
    // 100 chapter addresses from the sample books (items of a playlist are titles or chapters)
    const list: Book[] = (await (await s.request.get('/api/v1/book/?page_size=50')).json()).results;
    const chapters: string[] = [];
    for (const b of list) chapters.push(...((await (await s.request.get(b.api_url)).json()).chapters as { url: string }[]).map((c) => c.url));
    expect(chapters.length).toBeGreaterThanOrEqual(100);
    let shelf = '';
    for (let i = 0; i < 50; i++) {
      const made = await s.request.post('/nest/api/api/v2/collections/', { headers: await headers(), data: { name: `Shelf ${String(i).padStart(2, '0')}`, description: '' } });
      expect(made.status()).toBe(201);
      const id = (await made.json()).id as string;
      shelf = id;
      expect((await s.request.post(`/nest/api/api/v2/collections/${id}/add-content/`, { headers: await headers(), data: { content: chapters.slice(0, 100) } })).status()).toBe(200);
    }
    // the 51st: the queue
    expect((await s.request.post('/api/v1/queue-simple/', { headers: await headers(), data: chapters.slice(0, 100) })).status()).toBe(200);
    const whole = await s.request.get('/nest/api/api/v2/collections/', { headers: { accept: 'application/json; version=v2' } });
    const wholeBytes = (await whole.body()).length;
    expect(wholeBytes).toBeGreaterThan(200_000);
    const cookies = (await setup.storageState()).cookies;
    await setup.close();

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      for (const path of ['/library/', '/home/', `/c/collection/${shelf}/`]) {
        // a fresh browser: nothing stored, every answer comes over the wire
        const context = await browser.newContext({ baseURL, viewport, storageState: { cookies, origins: [] } });
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        const asked: { url: string; bytes: Promise<number> }[] = [];
        page.on('response', (r) => {
          if (/\/collections\/|queue-simple/.test(r.url())) asked.push({ url: r.url(), bytes: r.body().then((b) => b.length, () => 0) });
        });
        await page.goto(path);
        // the cards' controls are ready once the playlists are known
        await page.getByRole('button', { name: /^Add(ed)? to Playlist$/ }).first().waitFor();
        await expect.poll(() => page.getByRole('button', { name: /(to|from) Queue$/ }).first().isEnabled()).toBe(true);
        const sizes = await Promise.all(asked.map((a) => a.bytes));
        const total = sizes.reduce((a, b) => a + b, 0);
        const paths = asked.map((a) => new URL(a.url).pathname + new URL(a.url).search);
        // never the whole list of every playlist's items
        expect(paths.filter((p) => /\/collections\/$/.test(p)), paths.join(' ')).toEqual([]);
        // a playlist's page brings the light list and its own items with it (routes/web.ts, core's
        // firstScreenRequests): asked for by no request; any other page asks for the light list once
        const ownPage = path.startsWith('/c/collection/');
        expect(paths.filter((p) => p.endsWith('?content=none'))).toHaveLength(ownPage ? 0 : 1);
        if (ownPage) expect(paths.filter((p) => p.endsWith(`/collections/${shelf}/`))).toHaveLength(0);
        if (ownPage) await page.getByRole('heading', { level: 1, name: /^Shelf / }).waitFor();
        expect(paths.filter((p) => p.endsWith('/holding/')).length).toBeLessThanOrEqual(2);
        expect(total, `${paths.join(' ')}: ${sizes.join(' + ')} bytes`).toBeLessThan(wholeBytes / 10);
        if (!path.startsWith('/c/')) expect(total).toBeLessThan(50_000);
        await context.close();
      }
    }
  });
});
