/**
 * Routes. The catalog (the landing page) is in the entry chunk; the title page, the reader and the login page
 * are loaded on demand so the entry stays small (DESIGN.md budget: 120 KB gzip).
 */
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { LibraryPage, PublisherPage, TopicPage } from '../features/catalog/CatalogPage.tsx';
import { Spinner } from '../components/Spinner.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';
import { RouteError } from './RouteError.tsx';
import { Shell } from './Shell.tsx';
import { appPaths } from './links.ts';

function PageLoading() {
  return (
    <div className="page" style={{ display: 'grid', placeItems: 'center', minHeight: '40vh', color: 'var(--color-accent)' }}>
      <Spinner size="lg" label="Loading…" />
    </div>
  );
}

export const routes: RouteObject[] = [
  {
    path: '/',
    Component: Shell,
    HydrateFallback: PageLoading,
    ErrorBoundary: RouteError,
    children: [
      {
        // Errors inside a page keep the shell (top bar) around them.
        ErrorBoundary: RouteError,
        children: [
          { index: true, element: <Navigate to={appPaths.library} replace /> },
          { path: 'library', Component: LibraryPage },
          { path: 'topics/:slug', Component: TopicPage },
          { path: 'library/publisher/:slug', Component: PublisherPage },
          {
            path: 'library/book/:bookId',
            lazy: () => import('../features/title/TitlePage.tsx').then((m) => ({ Component: m.TitlePage })),
          },
          {
            path: 'library/view/:titleSafe/:bookId/*',
            lazy: () => import('../features/reader/ReaderPage.tsx').then((m) => ({ Component: m.ReaderPage })),
          },
          {
            path: 'login',
            lazy: () => import('../features/account/LoginPage.tsx').then((m) => ({ Component: m.LoginPage })),
          },
          { path: '*', Component: NotFoundPage },
        ],
      },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
