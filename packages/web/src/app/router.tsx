/**
 * Routes. The catalog (the landing page) is in the entry chunk; the title page, the reader, the login page and
 * the playlist area (/c/) are loaded on demand so the entry stays small (DESIGN.md budget: 120 KB gzip). React Router's declarative
 * mode is used on purpose: the data-router machinery (loaders, actions) costs some 17 KB gzip that this app,
 * which loads its data through react-query, does not need.
 */
import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { LibraryPage, PublisherPage, TopicPage } from '../features/catalog/CatalogPage.tsx';
import { Spinner } from '../components/Spinner.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';
import { Shell } from './Shell.tsx';
import { appPaths } from './links.ts';

const TitlePage = lazy(() => import('../features/title/TitlePage.tsx'));
const ReaderPage = lazy(() => import('../features/reader/ReaderPage.tsx'));
const LoginPage = lazy(() => import('../features/account/LoginPage.tsx'));
const PlaylistsArea = lazy(() => import('../features/playlists/PlaylistsArea.tsx'));

export function PageLoading() {
  return (
    <div className="page page-loading">
      <Spinner size="lg" label="Loading…" />
    </div>
  );
}

const deferred = (node: ReactNode) => <Suspense fallback={<PageLoading />}>{node}</Suspense>;

export function AppRoutes() {
  return (
    <Routes>
      {/* reader.md §2: the archive_list navigation state hides the navigation and shows a list of books. */}
      <Route
        path="archive_list"
        element={
          <main id="main" className="archive-list">
            <LibraryPage />
          </main>
        }
      />
      <Route element={<Shell />}>
        <Route index element={<Navigate to={appPaths.library} replace />} />
        <Route path="library" element={<LibraryPage />} />
        <Route path="topics/:slug" element={<TopicPage />} />
        <Route path="library/publisher/:slug" element={<PublisherPage />} />
        <Route path="library/book/:bookId" element={deferred(<TitlePage />)} />
        <Route path="library/view/:titleSafe/:bookId/*" element={deferred(<ReaderPage />)} />
        <Route path="login" element={deferred(<LoginPage />)} />
        <Route path="c/*" element={deferred(<PlaylistsArea />)} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
