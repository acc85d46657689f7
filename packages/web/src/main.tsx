import { StrictMode } from 'react';
import { App } from './app/App.tsx';
import { renderApp } from './app/renderApp.ts';
import { applyStylesheets } from './app/stylesheets.ts';
import './styles/global.css';

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
// The page's own shell stays on screen until the app's stylesheets apply: nothing renders unstyled.
void applyStylesheets(document).then(() =>
  renderApp(
    root,
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
