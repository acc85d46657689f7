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
const LIMIT_MS = 2_000;

/** The screen was not rendered within the limit: the page is served as the browser renders it. */
export class FirstScreenTimeout extends Error {
  override readonly name = 'FirstScreenTimeout';
  constructor(
    readonly limitMs: number,
    why = `the first screen was not rendered within ${limitMs} ms`,
  ) {
    super(why);
  }
}

// One render at a time: the page data and the cookies are the module's while it renders (a render takes a few ms),
// so a render keeps its turn until it ends, even past its page's limit (a render let go on would read the next
// one's page data). A page waits for its turn at most its limit, and is not rendered once the limit has passed;
// while the render holding the turn is past its limit (a stuck prepare, a very large answer), later pages are not
// held at all: they are served without their screen until it ends.
let queue: Promise<unknown> = Promise.resolve();
/** the render holding the turn is past its page's limit */
let overdue = false;

/** The screen's HTML for #root, or null when this address, or this page's data, is not rendered here. */
export function renderFirstScreen(input: FirstScreenInput, { limitMs = LIMIT_MS }: FirstScreenOptions = {}): Promise<string | null> {
  if (overdue) return Promise.reject(new FirstScreenTimeout(limitMs, 'the first screen was not rendered: a render past its limit still holds the turn'));
  let late = false;
  let started = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      if (started) overdue = true;
      reject(new FirstScreenTimeout(limitMs));
    }, limitMs);
  });
  const run = queue.then(() => {
    if (late) return null;
    started = true;
    return render(input).finally(() => {
      overdue = false;
    });
  });
  queue = run.catch(() => undefined);
  return Promise.race([run, limit]).finally(() => clearTimeout(timer));
}

async function render({ url, cookie, page }: FirstScreenInput): Promise<string | null> {
  const { pathname, search } = new URL(url, 'http://lectern.invalid');
  if (!page.profile || !isFirstScreen(pathname)) return null;
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
    setServerCookies(null);
    setServerPage(null, null);
  }
}
