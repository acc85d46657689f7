/**
 * The server's renders of first screens take turns (src/ssr.tsx), each within its page's limit (docs/decisions.md
 * "The first screen rendered on the server, within a time limit"): a render that never ends gives up its turn when
 * its limit passes, and the next page's screen is rendered.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { firstScreenRequests } from '@lectern/core';
import { resetBootData } from '../src/api/boot.ts';
import { FirstScreenTimeout, renderFirstScreen } from '../src/ssr.tsx';
import { profile, whaleSearch } from './fixtures.ts';
import { stubFetch } from './helpers.tsx';

const search = firstScreenRequests('/search/', new URLSearchParams('q=whale'))[0]!;

beforeEach(() => {
  history.replaceState(null, '', '/search/?q=whale');
  // a request the render makes itself is never answered: its prepare never ends
  stubFetch(() => new Promise<Response>(() => {}));
});
afterEach(() => {
  resetBootData();
  vi.unstubAllGlobals();
});

describe('the first screen within its limit', () => {
  it('gives up a render that never ends at its limit, and renders the next page behind it', async () => {
    // a page without its answer: the screen's query is asked of a server that never answers
    const stuck = renderFirstScreen({ url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile } }, { limitMs: 50 });
    const next = renderFirstScreen({ url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile, answers: { [search]: whaleSearch() } } }, { limitMs: 60_000 });
    await expect(stuck).rejects.toBeInstanceOf(FirstScreenTimeout);
    const html = await next;
    expect(html).toContain('Results for “whale”');
    expect(html).toContain('Moby-Dick');
  });

  it('counts the wait for its turn in a page\'s limit', async () => {
    const stuck = renderFirstScreen({ url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile } }, { limitMs: 200 });
    const waiting = renderFirstScreen({ url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile, answers: { [search]: whaleSearch() } } }, { limitMs: 50 });
    await expect(waiting).rejects.toBeInstanceOf(FirstScreenTimeout);
    await expect(stuck).rejects.toBeInstanceOf(FirstScreenTimeout);
  });
});
