/**
 * The app's start, the last of the entry's steps (main.tsx): the first screen hydrated when the server rendered it,
 * else rendered once the app's stylesheets apply (`styled`).
 */
import { StrictMode } from 'react';
import { App, startApp } from './App.tsx';
import { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } from './firstScreen.ts';
import { hydrateApp, renderApp } from './renderApp.ts';

export function start(root: HTMLElement, styled: Promise<void>): void {
  if (root.hasAttribute(FIRST_SCREEN_ATTRIBUTE)) {
    // The server rendered the screen with its stylesheets' rules in the page (routes/web.ts withFirstScreen; their
    // links disabled, or, when the rules could not be written, stylesheets that held the paint):
    // hydrated once the browser has what the server rendered it from, or, should that fail, rendered over it.
    const client = startApp();
    const app = (
      <StrictMode>
        <App client={client} />
      </StrictMode>
    );
    void prepareFirstScreen(client, location.pathname, location.search).then(
      (ready) => (ready ? hydrateApp(root, app) : renderApp(root, app)),
      () => renderApp(root, app),
    );
  } else {
    void styled.then(() =>
      renderApp(
        root,
        <StrictMode>
          <App />
        </StrictMode>,
      ),
    );
  }
}
