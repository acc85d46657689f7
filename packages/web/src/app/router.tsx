/**
 * Routes. The catalog (the landing page) is in the entry chunk; the title page, the reader, the login page and the
 * playlist area (/c/) are loaded on demand so the entry stays small (DESIGN.md budget: 120 KB gzip). The catalog stays
 * in the entry on purpose (tried and measured: docs/decisions.md "Each screen's first answers in its page, its chunks
 * named with it, renders in slices"): the title cards' code it brings there is what the home, the playlists and search
 * render too; loaded with the catalog on demand, the bundler split it into a dozen small chunks that every such page
 * then asked for (31-36 files in a page's first burst instead of 17). React Router's declarative mode is used on
 * purpose: the data-router machinery (loaders, actions) costs some 17 KB gzip that this app, which loads its data
 * through react-query, does not need.
 */
import { startTransition, useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { isMediaFormat, paths, type BookDetail } from '@lectern/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { api } from '../api/client.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { LibraryPage, PublisherPage, TopicPage } from '../features/catalog/CatalogPage.tsx';
import { PageLoading } from '../components/PageLoading.tsx';
import { NotFoundPage } from '../shared/NotFoundPage.tsx';
import { HydrationBoundary } from './hydration.tsx';
import { Shell } from './Shell.tsx';
import { appPaths } from '../shared/links.ts';


type Loaded = { page: ComponentType } | { error: unknown };

/**
 * A page whose code is loaded on demand: the loading page until its chunk is in, then the page at once. Not
 * React.lazy under Suspense: React reveals a boundary's content no sooner than 300 ms after its fallback appeared
 * (its fallback throttle), so every deep link to the reader, a playlist or a title waited that long before the page
 * could even ask for its data. A chunk that fails to load goes to the shell's error boundary; the next visit tries again.
 */
type OnDemand = ComponentType & {
  /**
   * The page's code loaded, after which the page renders at once: what a page rendered on the server needs before
   * it is rendered there and before the browser hydrates it (ssr.tsx, main.tsx), or the first render would be the
   * loading page and not the server's HTML. Rejects when the chunk does not load.
   */
  preload: () => Promise<void>;
};

function onDemand(load: () => Promise<{ default: ComponentType }>): OnDemand {
  let loaded: { page: ComponentType } | null = null;
  let loading: Promise<Loaded> | null = null;
  const start = () =>
    (loading ??= load().then(
      (m) => (loaded = { page: m.default }),
      (error: unknown) => {
        loading = null;
        return { error };
      },
    ));
  function OnDemandPage() {
    const [failed, setFailed] = useState<{ error: unknown } | null>(null);
    const [, setReady] = useState(false);
    if (failed) throw failed.error;
    // Started while rendering, as React.lazy does: the chunk is asked for before the first paint.
    const pending = loaded ? null : start();
    useEffect(() => {
      if (!pending) return;
      let live = true;
      void pending.then((r) => {
        if (!live) return;
        if ('error' in r) setFailed(r);
        // rendered in slices, as the app's first render is (renderApp.ts): a page's first render in one task was a long
        // task of its own on a phone (decisions.md "Each screen's first answers in its page, its chunks named with it,
        // renders in slices")
        else startTransition(() => setReady(true));
      });
      return () => {
        live = false;
      };
    }, [pending]);
    if (!loaded) return <PageLoading />;
    const Page = loaded.page;
    return <Page />;
  }
  return Object.assign(OnDemandPage, {
    preload: () =>
      start().then((r) => {
        if ('error' in r) throw r.error;
      }),
  });
}

const TitlePage = onDemand(() => import('../features/title/TitlePage.tsx'));
const loadReader = () => import('../features/reader/ReaderPage.tsx');
const ReaderPage = onDemand(loadReader);
/** The reader's code (its chunk and what it imports) asked for as the app starts, on a reader address (App.tsx). */
export const preloadReader = (): void => void loadReader().catch(() => undefined);
const MediaPage = onDemand(() => import('../features/media/MediaPage.tsx'));

/**
 * The reader's address opens the reader for a book or a document and the media players for a video course or an
 * audiobook (docs/decisions.md "Media players"): the title's format decides. A book detail already in the cache (the
 * title page) answers at once; otherwise the format alone is asked of the metadata call (a few hundred bytes), not the
 * whole book detail: that was 54 KB for Moby-Dick, downloaded and checked before the reader could even ask for its
 * chapter (Lighthouse mobile). The media players fetch the detail themselves. A title that cannot be had goes to the
 * reader, which says why.
 */
function ViewPage() {
  const bookId = useParams().bookId ?? '';
  const queryClient = useQueryClient();
  const format = useQuery({
    queryKey: queryKeys.titleFormat(bookId),
    queryFn: async ({ signal }) => (await api.getMetadata([paths.bookApi(bookId)], signal))[0]?.content_format ?? null,
    initialData: () => queryClient.getQueryData<BookDetail>(queryKeys.book(bookId))?.content_format,
    staleTime: 60_000,
    retry: false,
  });
  // Offline (the request waits for the connection), the reader opens and says so itself.
  if (format.isPending && !format.isPaused) {
    // Most titles are books: their reader's code loads while the format is asked for.
    void loadReader().catch(() => undefined);
    return <PageLoading />;
  }
  return format.data && isMediaFormat(format.data) ? <MediaPage /> : <ReaderPage />;
}
const LoginPage = onDemand(() => import('../features/account/LoginPage.tsx'));
const RegisterPage = onDemand(() => import('../features/account/RegisterPage.tsx'));
const OnboardingPage = onDemand(() => import('../features/account/OnboardingPage.tsx'));
const AccountPage = onDemand(() => import('../features/account/AccountPage.tsx'));
const ShortcutsPage = onDemand(() => import('../features/account/ShortcutsPage.tsx'));
/** The search page's module (its query too: app/firstScreen.ts). */
export const loadSearchPage = () => import('../features/search/SearchPage.tsx');
export const SearchPage = onDemand(loadSearchPage);
const HomePage = onDemand(() => import('../features/home/HomePage.tsx'));
const ForgotPasswordPage = onDemand(() => import('../features/account/ForgotPasswordPage.tsx'));
const ResetPasswordPage = onDemand(() => import('../features/account/ResetPasswordPage.tsx'));
const FirstOperatorPage = onDemand(() => import('../features/account/FirstOperatorPage.tsx'));
const UnsubscribePage = onDemand(() => import('../features/account/UnsubscribePage.tsx'));
const SubscribePage = onDemand(() => import('../features/account/SubscribePage.tsx'));
const TeamSignUpPage = onDemand(() => import('../features/account/TeamSignUpPage.tsx'));
const TeamJoinPage = onDemand(() => import('../features/account/TeamJoinPage.tsx'));
const PlaylistsArea = onDemand(() => import('../features/playlists/PlaylistsArea.tsx'));
const LiveTrainingPage = onDemand(() => import('../features/live-training/LiveTrainingPage.tsx'));
const LiveCoursePage = onDemand(() => import('../features/live-training/CoursePage.tsx'));
/**
 * The operators' console (docs/decisions.md "The operators' console, web side"): its own chunk, never loaded for
 * readers.
 */
const AdminArea = onDemand(() => import('../features/admin/AdminArea.tsx'));

/** A boundary for what a page itself may suspend on (its own lazy parts have their own). */
// (a HydrationBoundary: a server-rendered page in it is hydrated after the root, and the first screen waits for it)
const deferred = (node: ReactNode) => <HydrationBoundary fallback={<PageLoading />}>{node}</HydrationBoundary>;

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
        <Route index element={<Navigate to={appPaths.home} replace />} />
        <Route path="home" element={deferred(<HomePage />)} />
        <Route path="library" element={<LibraryPage />} />
        <Route path="topics/:slug" element={<TopicPage />} />
        <Route path="library/publisher/:slug" element={<PublisherPage />} />
        <Route path="library/book/:bookId" element={deferred(<TitlePage />)} />
        <Route path="library/view/:titleSafe/:bookId/*" element={deferred(<ViewPage />)} />
        <Route path="login" element={deferred(<LoginPage />)} />
        <Route path="register" element={deferred(<RegisterPage />)} />
        <Route path="welcome/topics" element={deferred(<OnboardingPage />)} />
        <Route path="u" element={deferred(<AccountPage />)} />
        <Route path="u/shortcuts" element={deferred(<ShortcutsPage />)} />
        <Route path="search" element={deferred(<SearchPage />)} />
        <Route path="noresults" element={deferred(<SearchPage />)} />
        <Route path="forgot-password" element={deferred(<ForgotPasswordPage />)} />
        <Route path="reset-password" element={deferred(<ResetPasswordPage />)} />
        <Route path="setup" element={deferred(<FirstOperatorPage />)} />
        <Route path="newsletter/unsubscribe" element={deferred(<UnsubscribePage />)} />
        <Route path="subscribe" element={deferred(<SubscribePage />)} />
        <Route path="teams/new" element={deferred(<TeamSignUpPage />)} />
        <Route path="teams/join" element={deferred(<TeamJoinPage />)} />
        <Route path="c/*" element={deferred(<PlaylistsArea />)} />
        <Route path="live-training" element={deferred(<LiveTrainingPage />)} />
        <Route path="live-training/courses/:slug/:courseId" element={deferred(<LiveCoursePage />)} />
        <Route path="admin/*" element={deferred(<AdminArea />)} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
