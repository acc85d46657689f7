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

// One render at a time: the page data and the cookies are the module's while it renders (a render takes a few ms).
let queue: Promise<unknown> = Promise.resolve();

/** The screen's HTML for #root, or null when this address, or this page's data, is not rendered here. */
export function renderFirstScreen(input: FirstScreenInput): Promise<string | null> {
  const run = queue.then(() => render(input));
  queue = run.catch(() => undefined);
  return run;
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
