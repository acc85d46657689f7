import { StrictMode } from 'react';
import { App, startApp } from './app/App.tsx';
import { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } from './app/firstScreen.ts';
import { hydrateApp, renderApp } from './app/renderApp.ts';
import { applyStylesheets } from './app/stylesheets.ts';
import './styles/global.css';

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
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
  // The page's own shell stays on screen until the app's stylesheets apply: nothing renders unstyled.
  void applyStylesheets(document).then(() =>
    renderApp(
      root,
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
