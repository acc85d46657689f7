/**
 * The server's render of a signed-in reader's first screen (docs/decisions.md "The first screen rendered on the
 * server"; app/firstScreen.ts says which screens). Built by `npm run build` into dist/ssr/ (vite build --ssr) and
 * loaded by the server (packages/server/src/routes/web.ts), which writes the HTML into the page's #root for the
 * browser to hydrate. The render sees what the browser will see: the page data the server writes into the page
 * (api/boot.ts) and the request's cookies (api/cookies.ts) in place of `document.cookie`.
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { App, startApp } from './app/App.tsx';
import { isFirstScreen, prepareFirstScreen } from './app/firstScreen.ts';
import { type PageData, setServerPage } from './api/boot.ts';
import { setServerCookies } from './api/cookies.ts';

export { FIRST_SCREEN_ATTRIBUTE } from './app/firstScreen.ts';

export interface FirstScreenInput {
  /** the page's address, path and query */
  url: string;
  /** the request's Cookie header */
  cookie: string | null;
  /** the data written into the page (routes/web.ts bootData) */
  page: PageData;
}

/** limitMs: how long the page waits for its screen, its turn in the queue included. */
export interface FirstScreenOptions {
  limitMs?: number;
}

/** How long a page waits for its screen when the caller names no limit (routes/web.ts names its own). */
const LIMIT_MS = 500;

/** The screen was not rendered within the limit: the page is served as the browser renders it. */
export class FirstScreenTimeout extends Error {
  override readonly name = 'FirstScreenTimeout';
  constructor(readonly limitMs: number) {
    super(`the first screen was not rendered within ${limitMs} ms`);
  }
}

// One render at a time: the page data and the cookies are the module's while it renders (a render takes a few ms).
// The turn is held until the render ends or its page's limit passes, whichever is first: a render that is slow (a
// large answer) or never ends (a stuck prepare) no longer holds every later page. A page whose limit passes while it
// waits is not rendered at all.
let queue: Promise<unknown> = Promise.resolve();
/** The render that owns the page data and the cookies now: one past its limit clears nothing of a later one's. */
let owner = 0;

/** The screen's HTML for #root, or null when this address, or this page's data, is not rendered here. */
export function renderFirstScreen(input: FirstScreenInput, { limitMs = LIMIT_MS }: FirstScreenOptions = {}): Promise<string | null> {
  let late = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(new FirstScreenTimeout(limitMs));
    }, limitMs);
  });
  const run = queue.then(() => (late ? null : render(input)));
  const bounded = Promise.race([run, limit]).finally(() => clearTimeout(timer));
  queue = bounded.catch(() => undefined);
  return bounded;
}

async function render({ url, cookie, page }: FirstScreenInput): Promise<string | null> {
  const { pathname, search } = new URL(url, 'http://lectern.invalid');
  if (!page.profile || !isFirstScreen(pathname)) return null;
  const self = ++owner;
  setServerCookies(cookie);
  setServerPage(page, pathname + search);
  try {
    const client = startApp();
    if (!(await prepareFirstScreen(client, pathname, search))) return null;
    return renderToString(
      <StrictMode>
        <App client={client} location={pathname + search} />
      </StrictMode>,
    );
  } finally {
    // (a render past its limit may end while a later one renders: what it made is thrown away, and the state is that one's)
    if (owner === self) {
      setServerCookies(null);
      setServerPage(null, null);
    }
  }
}
