/**
 * The server's renders of first screens take turns (src/ssr.tsx), each page within its limit (docs/decisions.md
 * "The first screen rendered on the server, within a time limit"): a page is not held past its limit, behind a
 * render that never ends nor waiting for its turn, and rendering goes on once such a render has ended.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { firstScreenRequests } from '@lectern/core';
import { resetBootData } from '../src/api/boot.ts';
import { type FirstScreenInput, FirstScreenTimeout, renderFirstScreen } from '../src/ssr.tsx';
import { profile, whaleSearch } from './fixtures.ts';
import { json, stubFetch } from './helpers.tsx';

const search = firstScreenRequests('/search/', new URLSearchParams('q=whale'))[0]!;
/** a page without its answer: the screen's query is asked of the server, which answers only when released */
const unanswered: FirstScreenInput = { url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile } };
const answered: FirstScreenInput = { url: '/search/?q=whale', cookie: 'logged_in=1', page: { profile, answers: { [search]: whaleSearch() } } };

let released = false;
let release = () => {};
/** the server answers the requests the renders made (a 404), and every render after that is answered at once */
const answerAll = () => {
  released = true;
  release();
};

beforeEach(() => {
  released = false;
  history.replaceState(null, '', '/search/?q=whale');
  const waiting: (() => void)[] = [];
  release = () => waiting.splice(0).forEach((answer) => answer());
  stubFetch(() => (released ? json(404, { detail: 'Not found.' }) : new Promise<Response>((resolve) => waiting.push(() => resolve(json(404, { detail: 'Not found.' }))))));
});
afterEach(async () => {
  answerAll();
  // the renderer is free again: a visitor's page is answered (null), not refused
  await vi.waitFor(() => expect(renderFirstScreen({ ...unanswered, page: { profile: null } })).resolves.toBeNull(), { timeout: 10_000 });
  resetBootData();
  vi.unstubAllGlobals();
});

describe('the first screen within its limit', () => {
  it('gives up a render that never ends at its limit, and does not hold the pages after it', async () => {
    await expect(renderFirstScreen(unanswered, { limitMs: 50 })).rejects.toBeInstanceOf(FirstScreenTimeout);
    // refused at once, long before its own limit: the render before it still holds the turn
    await expect(renderFirstScreen(answered, { limitMs: 600_000 })).rejects.toThrow(/a render past its limit still holds the turn/);
  });

  it('renders again once the render past its limit has ended', async () => {
    await expect(renderFirstScreen(unanswered, { limitMs: 50 })).rejects.toBeInstanceOf(FirstScreenTimeout);
    answerAll();
    await vi.waitFor(() => expect(renderFirstScreen(answered, { limitMs: 600_000 })).resolves.toContain('Results for “whale”'), { timeout: 10_000 });
  });

  it("counts the wait for its turn in a page's limit", async () => {
    const stuck = renderFirstScreen(unanswered, { limitMs: 200 });
    await expect(renderFirstScreen(answered, { limitMs: 50 })).rejects.toBeInstanceOf(FirstScreenTimeout);
    await expect(stuck).rejects.toBeInstanceOf(FirstScreenTimeout);
  });
});
