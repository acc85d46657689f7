/**
 * The signed-in home rendered on the server is hydrated, not rendered again (docs/decisions.md "The first screen
 * rendered on the server"): the server knows the request's cookies and the page's answers, not the browser's
 * storage, language or time zone. Here the server renders in one time zone with empty storage, and the browser
 * hydrates in another, with the storage a returning reader's browser holds: the greeting, the trial's end date,
 * the sections, the queue's row and the newsletter block must come out the same, or React reports a mismatch.
 */
import { act, StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID, COOKIES, firstScreenRequests, type HomeModules, type HomeResponse } from '@lectern/core';
import { profile, title } from './fixtures.ts';
import { json, stubFetch } from './helpers.tsx';

const trialReader = { ...profile, subscription_status: 'trial' as const, account: { ...profile.account, type: 'Trial', trial_ends_at: '2030-01-01T05:00:00Z' } };
const home: HomeResponse = {
  announcements: [],
  sections: [
    { key: 'queue', heading: 'Your queue', titles: [title('q1', 'Queued Book')] },
    { key: 'recommended', heading: 'Recommended for you', titles: [title('r1', 'Recommended Book'), title('r2', 'Second Pick')], recommender_system: 'topics' },
  ],
  topics: [{ slug: 'python', name: 'Python', count: 3 }],
};
const modules: HomeModules = { newsletter: { subscribed: false, every_days: 7 }, dismissed: [] };
const [homeUrl, modulesUrl] = firstScreenRequests('/home/', new URLSearchParams());
const page = { profile: trialReader, answers: { [homeUrl!]: home, [modulesUrl!]: modules } };

const asked: string[] = [];
const zone = process.env.TZ;
beforeEach(() => {
  asked.length = 0;
  localStorage.clear();
  // this browser has shown ada the home before: the cookie the request carries says so, to the server too
  document.cookie = 'logged_in=1; path=/';
  document.cookie = `${COOKIES.homeSeen}=${profile.user_uuid}; path=/`;
  history.replaceState(null, '', '/home/');
  stubFetch((call) => {
    asked.push(call.url);
    return json(404, { detail: 'Not found.' });
  });
});
afterEach(() => {
  document.cookie = 'logged_in=; max-age=0; path=/';
  document.cookie = `${COOKIES.homeSeen}=; max-age=0; path=/`;
  document.body.innerHTML = '';
  localStorage.clear();
  delete (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the signed-in home rendered on the server', () => {
  it("hydrates a returning trial reader's home made in another time zone with no mismatch, asking for nothing the page brought", async () => {
    // the server, where it is already the first of January 2030 at the trial's end
    process.env.TZ = 'Pacific/Kiritimati';
    const { renderFirstScreen } = await import('../src/ssr.tsx');
    const html = await renderFirstScreen({ url: '/home/', cookie: document.cookie, page });
    expect(html).toContain('Welcome back, ada');
    expect(html).toContain('Queued Book');
    expect(html).toContain('Recommended Book');
    expect(html).toContain('Your free trial ends on January 1, 2030.');
    expect(html).toMatch(/data-home-module="newsletter"/);

    // the browser: still the 31st of December there, and the storage of a browser that has shown the home before
    vi.resetModules();
    process.env.TZ = 'America/Los_Angeles';
    localStorage.setItem(`lectern.home-seen.${profile.user_uuid}`, '1');
    const { App, startApp } = await import('../src/app/App.tsx');
    const { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } = await import('../src/app/firstScreen.ts');
    const { hydrateApp } = await import('../src/app/renderApp.ts');
    document.body.innerHTML = `<div id="root" ${FIRST_SCREEN_ATTRIBUTE}>${html}</div><script type="application/json" id="${BOOT_DATA_ID}">${JSON.stringify(page)}</script>`;
    const root = document.getElementById('root')!;
    const heading = root.querySelector('h1');
    const queued = root.querySelector('[data-home-section="queue"]');
    expect(heading?.textContent).toBe('Welcome back, ada');

    // (act's environment, as React Testing Library declares it: the modules loaded afresh above do not see its flag)
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const consoleError = vi.spyOn(console, 'error');
    const recoverable: unknown[] = [];
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
    expect(root.querySelector('h1')).toBe(heading);
    expect(root.querySelector('[data-home-section="queue"]')).toBe(queued);
    expect(root.querySelector('[data-home-module="newsletter"]')).not.toBeNull();
    // hydrated, the trial's end is said in the browser's own time zone
    expect(root.textContent).toContain('Your free trial ends on December 31, 2029.');
    // the home's sections and the reader's blocks were the page's: not asked again as the page mounted
    expect(asked.filter((url) => url.includes(homeUrl!) || url.includes(modulesUrl!))).toEqual([]);
  });

  it("renders nothing for a visitor's page or a page without the home's answers", async () => {
    const { renderFirstScreen } = await import('../src/ssr.tsx');
    expect(await renderFirstScreen({ url: '/home/', cookie: null, page: { profile: null } })).toBeNull();
    expect(await renderFirstScreen({ url: '/home/', cookie: document.cookie, page: { profile: trialReader, answers: { [homeUrl!]: home } } })).toBeNull();
  });
});
