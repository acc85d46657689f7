/**
 * The first screen rendered on the server is hydrated, not rendered again (docs/decisions.md "The first screen
 * rendered on the server"): the HTML src/ssr.tsx makes from a page's data is the tree the browser's app makes from
 * the same data, so hydrating it raises no mismatch (no recoverable error, nothing on the console), keeps the
 * server's elements and asks the server for nothing the page brought.
 */
import { act, StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID, type CatalogSearchResponse, firstScreenRequests } from '@lectern/core';
import { App, startApp } from '../src/app/App.tsx';
import { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } from '../src/app/firstScreen.ts';
import { hydrateApp } from '../src/app/renderApp.ts';
import { resetBootData } from '../src/api/boot.ts';
import { renderFirstScreen } from '../src/ssr.tsx';
import { profile, whaleSearch } from './fixtures.ts';
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
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

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
});
