/**
 * The first screen rendered on the server is hydrated, not rendered again (docs/decisions.md "The first screen
 * rendered on the server"): the HTML src/ssr.tsx makes from a page's data is the tree the browser's app makes from
 * the same data, so hydrating it raises no mismatch (no recoverable error, nothing on the console), keeps the
 * server's elements and asks the server for nothing the page brought.
 */
import { act, StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID, type CatalogSearchResponse, type ContentMetadata, firstScreenRequests, type Paged } from '@lectern/core';
import { App, startApp } from '../src/app/App.tsx';
import { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } from '../src/app/firstScreen.ts';
import { hydrateApp } from '../src/app/renderApp.ts';
import { resetBootData } from '../src/api/boot.ts';
import { renderFirstScreen } from '../src/ssr.tsx';
import { summaryOf } from '../src/shared/playlists/store.ts';
import { item, playlist, profile, queue, title, whaleSearch } from './fixtures.ts';
import { json, stubFetch } from './helpers.tsx';

const answer: CatalogSearchResponse = whaleSearch({ format: [{ value: 'book', label: 'Book', count: 2 }] });

const asked: string[] = [];
beforeEach(() => {
  asked.length = 0;
  document.cookie = 'logged_in=1; path=/';
  history.replaceState(null, '', '/search/?q=whale');
  stubFetch((call) => {
    asked.push(call.url);
    return json(404, { detail: 'Not found.' });
  });
});
afterEach(() => {
  document.cookie = 'logged_in=; max-age=0; path=/';
  document.body.innerHTML = '';
  resetBootData();
  delete (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/**
 * The page at `url` as the server sends it (its screen rendered by src/ssr.tsx from `page`, packages/server
 * src/routes/web.ts withFirstScreen and bootData), hydrated as main.tsx does: no recoverable error, nothing on the
 * console, and the server's heading kept (the same element, not a render of the browser's own).
 */
async function hydrateServerPage(url: string, page: { profile: typeof profile; answers: Record<string, unknown> }): Promise<HTMLElement> {
  history.replaceState(null, '', url);
  const html = await renderFirstScreen({ url, cookie: document.cookie, page });
  expect(html, 'the server renders the screen').not.toBeNull();
  resetBootData();
  document.body.innerHTML = `<div id="root" ${FIRST_SCREEN_ATTRIBUTE}>${html}</div><script type="application/json" id="${BOOT_DATA_ID}">${JSON.stringify(page)}</script>`;
  const root = document.getElementById('root')!;
  const heading = root.querySelector('h1');
  expect(heading).not.toBeNull();
  const consoleError = vi.spyOn(console, 'error');
  const recoverable: unknown[] = [];
  const client = startApp();
  expect(await prepareFirstScreen(client, location.pathname, location.search)).toBe(true);
  // (the screen's other queries answer inside act: React's act environment, so their updates are not warned about)
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  await act(async () => {
    hydrateApp(
      root,
      <StrictMode>
        <App client={client} />
      </StrictMode>,
      { onRecoverableError: (error) => recoverable.push(error) },
    );
  });
  expect(recoverable).toEqual([]);
  expect(consoleError).not.toHaveBeenCalled();
  expect(root.querySelector('h1')).toBe(heading);
  return root;
}

describe('the first screen rendered on the server', () => {
  it("hydrates the server's search page with no mismatch, keeping its elements and asking for nothing the page brought", async () => {
    const search = firstScreenRequests('/search/', new URLSearchParams('q=whale'))[0]!;
    const page = { profile, answers: { [search]: answer } };
    const html = await renderFirstScreen({ url: '/search/?q=whale', cookie: document.cookie, page });
    expect(html).toContain('Moby-Dick');
    expect(html).toContain('Results for “whale”');

    // the page as the server sends it (packages/server/src/routes/web.ts withFirstScreen, bootData)
    resetBootData();
    document.body.innerHTML = `<div id="root" ${FIRST_SCREEN_ATTRIBUTE}>${html}</div><script type="application/json" id="${BOOT_DATA_ID}">${JSON.stringify(page)}</script>`;
    const root = document.getElementById('root')!;
    const heading = root.querySelector('h1');
    const account = root.querySelector('[aria-label^="Account"], [class*="account-menu"]');
    expect(heading?.textContent).toContain('Results for “whale”');
    expect(account).not.toBeNull();

    const consoleError = vi.spyOn(console, 'error');
    const recoverable: unknown[] = [];
    // as main.tsx does
    const client = startApp();
    expect(await prepareFirstScreen(client, location.pathname, location.search)).toBe(true);
    await act(async () => {
      hydrateApp(
        root,
        <StrictMode>
          <App client={client} />
        </StrictMode>,
        { onRecoverableError: (error) => recoverable.push(error) },
      );
    });
    expect(recoverable).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    // hydrated: the server's elements are the app's now, not replaced by a render of its own
    expect(root.querySelector('h1')).toBe(heading);
    expect(root.querySelector('[aria-label^="Account"], [class*="account-menu"]')).toBe(account);
    expect(root.textContent).toContain('Moby-Dick');
    // the search answer was the page's, taken once: not asked again as the page mounted
    expect(asked.filter((url) => url.includes('/api/v2/search/'))).toEqual([]);
  });

  it("hydrates the server's catalog with no mismatch, its cards and Load more kept, asking for nothing the page brought", async () => {
    const first = firstScreenRequests('/library/', new URLSearchParams())[0]!;
    const answer: Paged<ContentMetadata> = { count: 40, next: '/api/v1/book/?page=2&page_size=24', previous: null, results: [title('b1', 'Moby-Dick'), title('b2', 'Emma')] };
    const root = await hydrateServerPage('/library/', { profile, answers: { [first]: answer } });
    expect(root.querySelector('h1')?.textContent).toBe('Library');
    expect(root.querySelector('a[href="/library/book/b1/"]')?.textContent).toContain('Moby-Dick');
    expect(root.textContent).toContain('Showing 2 of 40');
    expect([...root.querySelectorAll('button')].some((b) => b.textContent === 'Load more')).toBe(true);
    expect(asked.filter((url) => url.includes('/api/v1/book/?'))).toEqual([]);
  });

  it("hydrates the server's playlist page with no mismatch, its heading, list and items kept, asking for nothing the page brought", async () => {
    const sea = playlist('p1', 'Sea stories', [item('b1', [['sea', 'Sea']]), item('b2', [['sea', 'Sea']])], { description: 'Salt and wind' });
    const queued = queue([item('b3')]);
    const [summaries, one, queueUrl] = firstScreenRequests('/c/collection/p1/', new URLSearchParams());
    const answers = {
      [summaries!]: [queued, sea].map(summaryOf),
      [queueUrl!]: { results: [{ url: '/api/v1/book/b3/', is_whole_book: true, natural_key: ['b3'] }] },
      [one!]: sea,
    };
    const root = await hydrateServerPage('/c/collection/p1/', { profile, answers });
    expect(root.querySelector('h1')?.textContent).toBe('Sea stories');
    expect(root.textContent).toContain('Salt and wind');
    expect(root.querySelector('nav[aria-label="Your playlists"] a[aria-current="page"]')?.textContent).toContain('Sea stories');
    expect(root.querySelector('.playlist__count')?.textContent).toMatch(/^2 items in Sea stories/);
    expect(asked.filter((url) => /\/collections\/|\/queue\//.test(url))).toEqual([]);
  });
});
