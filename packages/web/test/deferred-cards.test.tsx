/**
 * The home's sections and the catalog's cards are rendered after the task their answer arrived in, in a deferred render
 * that React slices (docs/decisions.md "Each screen's first answers in its page, its chunks named with it, renders in
 * slices": a query's answer re-renders synchronously, and a screen of cards rendered at once was a long task on a
 * phone). Shown by giving the answer in a task of the test's own and looking at the page in the very next task, queued
 * before the answer was given: the skeleton is still there, and the cards come after. Without the deferral they are on
 * the page in the answer's own task.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HomeResponse } from '@lectern/core';
import { queryKeys } from '../src/api/queryKeys.ts';
// the app's query notifications (in a microtask of the task that settled them), set where it makes its client
import '../src/app/providers.tsx';
import { LibraryPage } from '../src/features/catalog/CatalogPage.tsx';
import { HomePage } from '../src/features/home/HomePage.tsx';
import { profile, title } from './fixtures.ts';
import { stubFetch } from './helpers.tsx';

vi.setConfig({ testTimeout: 30_000 });
/** A loaded machine (the suite runs beside others) can take seconds to render a screen. */
const WAIT = { timeout: 10_000 };

const titles = Array.from({ length: 24 }, (_, i) => title(`t${i}`, `Title number ${i}`));
const home: HomeResponse = {
  announcements: [],
  sections: [
    { key: 'new', heading: 'New in the library', titles: titles.slice(0, 3) },
    { key: 'popular', heading: 'Popular', titles: titles.slice(3, 6) },
  ],
  topics: [],
};

function show(address: string, page: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(queryKeys.profile, profile);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[address]}>{page}</MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

/**
 * Gives the answer in a task of its own and says whether `selector` was on the page in the task right after it
 * (queued before the answer, so ahead of whatever the answer schedules).
 */
function shownInAnswerTask(answer: () => void, selector: string): Promise<boolean> {
  return new Promise((resolve) => {
    setImmediate(() => {
      setImmediate(() => resolve(document.querySelector(selector) !== null));
      answer();
    });
  });
}

let actEnvironment: unknown;
beforeAll(async () => {
  await import('../src/api/schemas.ts');
});
beforeEach(() => {
  document.cookie = 'logged_in=1; path=/';
  // every request stays unanswered: the answers are the test's to give
  stubFetch(() => new Promise<Response>(() => undefined));
  actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT;
});
afterEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT = actEnvironment;
  vi.unstubAllGlobals();
  document.cookie = 'logged_in=; max-age=0; path=/';
});

/** After the first render (in act), updates run as in the browser, outside act. */
const asInTheBrowser = () => ((globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT = false);

describe('cards rendered after their answer', () => {
  it("the home's sections", async () => {
    const client = show('/home/', <HomePage />);
    expect(document.querySelector('[data-home-section]')).toBeNull();
    asInTheBrowser();
    const shown = await shownInAnswerTask(() => client.setQueryData(queryKeys.home(profile.user_uuid), home), '[data-home-section]');
    expect(shown).toBe(false);
    await screen.findByText('Popular', undefined, WAIT);
    expect(document.querySelectorAll('[data-home-card]')).toHaveLength(6);
  });

  it("the catalog's cards", async () => {
    const client = show('/library/', <LibraryPage />);
    asInTheBrowser();
    const page = { count: titles.length, next: null, previous: null, results: titles };
    const shown = await shownInAnswerTask(
      () => client.setQueryData(queryKeys.books({ sort: 'title' }), { pages: [page], pageParams: [{ page: 1, cursor: null }] }),
      '.title-card',
    );
    expect(shown).toBe(false);
    await screen.findByRole('heading', { name: 'Title number 23' }, WAIT);
  });
});
