/**
 * The first screens the server renders with React (docs/decisions.md "The first screen rendered on the server"):
 * for a signed-in reader, the server renders the screen from the answers it writes into the page (ssr.tsx,
 * packages/server/src/routes/web.ts), and the browser hydrates that HTML instead of rendering it again (main.tsx),
 * so the screen's largest element is in the HTML and React's first render no longer blocks the main thread
 * (docs/performance.md "Lighthouse"). Both sides prepare the screen here in the same way, so they render the same
 * tree: the page's code loaded (not the loading page) and its first query answered from the page's answers.
 */
import type { QueryClient } from '@tanstack/react-query';
import { loadSearchPage, SearchPage } from './router.tsx';

/** The attribute the server puts on #root when its content is the screen rendered by React, to be hydrated. */
export const FIRST_SCREEN_ATTRIBUTE = 'data-lectern-ssr';

/**
 * How long the page's answer counts as fresh: the screen's query, mounted as the page hydrates, does not ask the
 * server again for what the page brought a moment ago (it would otherwise, its data being older than its stale
 * time of 0); a later visit to the same address asks, as it always did.
 */
const FRESH_MS = 30_000;

/**
 * One server-rendered screen: the addresses it answers, and how to make it ready: its page's code loaded and its
 * first query answered into `client`; true when that query succeeded. A screen is added here, as a row, and
 * nowhere else on the web side (ssr.tsx and main.tsx go through isFirstScreen and prepareFirstScreen).
 */
interface FirstScreen {
  path: RegExp;
  prepare: (client: QueryClient, params: URLSearchParams) => Promise<boolean>;
}

/** The first query answered from the page and kept fresh for FRESH_MS, so the hydrating screen does not ask again. */
async function answerFromPage(client: QueryClient, query: { queryKey: readonly unknown[] }): Promise<boolean> {
  client.setQueryDefaults(query.queryKey, { staleTime: FRESH_MS });
  await client.prefetchQuery({ ...query, retry: false });
  return client.getQueryState(query.queryKey)?.status === 'success';
}

const FIRST_SCREENS: readonly FirstScreen[] = [
  {
    path: /^\/search\/?$/,
    prepare: async (client, params) => {
      const [module] = await Promise.all([loadSearchPage(), SearchPage.preload()]);
      return answerFromPage(client, module.searchQueryOf(params));
    },
  },
];

const firstScreenAt = (pathname: string): FirstScreen | undefined => FIRST_SCREENS.find((screen) => screen.path.test(pathname));

export const isFirstScreen = (pathname: string): boolean => firstScreenAt(pathname) !== undefined;

/**
 * The screen at `pathname` + `search` made ready to render: its page's code loaded and its first query answered
 * into `client` (from the page's answers: api/boot.ts). False when it is not such a screen or its query did not
 * succeed: the page is then rendered in the browser as any other.
 */
export async function prepareFirstScreen(client: QueryClient, pathname: string, search: string): Promise<boolean> {
  const screen = firstScreenAt(pathname);
  return screen ? screen.prepare(client, new URLSearchParams(search)) : false;
}
