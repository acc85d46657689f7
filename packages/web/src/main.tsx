import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { applyStylesheets } from './app/stylesheets.ts';
import './styles/global.css';

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
// The page's own shell stays on screen until the app's stylesheets apply: nothing renders unstyled.
void applyStylesheets(document).then(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
