/**
 * The playlist area under /c/ (library-playlists-account.md §2), loaded on demand. Every screen needs a signed-in
 * user: anonymous visitors are told 'Please log in to continue.' and sent to the sign-in page, which brings them
 * back afterwards. The layout holds the library navigation (links on a desktop, a select box on a phone, both in
 * display order) and the sidebar toolbar with New and Edit.
 */
import { useEffect, type ReactNode } from 'react';
import { Link, Outlet, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { MESSAGES, PLAYLIST_MESSAGES, withTryAgain } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { hasLoginCookie } from '../../api/cookies.ts';
import { appPaths } from '../../shared/links.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { useSession } from '../../shared/useSession.ts';
import { EditPlaylistPage } from './EditPlaylistPage.tsx';
import { NewPlaylistPage } from './NewPlaylistPage.tsx';
import { PlaylistView } from './PlaylistView.tsx';
import { itemCount, usePlaylists, type PlaylistEntry, type PlaylistsView } from '../../shared/playlists/store.ts';
import './PlaylistsArea.css';

/** Where a signed-out visitor goes: the sign-in page, which returns here, with the spec's message. */
function useSendToSignIn(active: boolean) {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    if (!active) return;
    const here = location.pathname + location.search + location.hash;
    navigate(appPaths.login(here), { replace: true, state: { notice: MESSAGES.pleaseLogIn } });
    // once, when the visitor turns out to be signed out
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active]);
}

function RequireSignIn({ children }: { children: ReactNode }) {
  const { profile, isLoading, failed, retry } = useSession();
  const signedOut = !hasLoginCookie() || (!isLoading && !profile && !failed);
  useSendToSignIn(signedOut);
  if (failed) {
    return (
      <div className="page">
        <title>Playlists · Lectern</title>
        <h1 className="visually-hidden">Playlists</h1>
        <ErrorState message={MESSAGES.contentRequestFailed} onRetry={retry} />
      </div>
    );
  }
  if (signedOut) {
    return (
      <div className="page">
        <Notice tone="info" role="alert" dismissible={false}>
          {MESSAGES.pleaseLogIn}
        </Notice>
      </div>
    );
  }
  if (isLoading) return <PageLoading />;
  return <>{children}</>;
}

/** The playlist the current address is about: its id, or the default one at /c/ and /c/topic/... */
export function useSelectedId(view: PlaylistsView): string | null {
  const { collectionId } = useParams();
  const location = useLocation();
  if (collectionId) return collectionId;
  if (location.pathname.startsWith(appPaths.newPlaylist)) return null;
  return view.defaultPlaylist?.id ?? null;
}

function LibraryNav({ view, selectedId }: { view: PlaylistsView; selectedId: string | null }) {
  const navigate = useNavigate();
  if (view.status === 'loading') {
    return (
      <>
        <div className="library-nav library-nav--loading" aria-hidden="true">
          {[70, 55, 80].map((w, i) => (
            <Skeleton key={i} style={{ width: `${w}%`, height: '1.1rem' }} />
          ))}
        </div>
        {/* Phones: the select box's place is kept, so the playlist below does not move when the list arrives. */}
        <div className="library-select" aria-hidden="true">
          <label htmlFor="library-select-loading" className="library-select__label">
            Playlist
          </label>
          <div className="library-select__control">
            <select id="library-select-loading" disabled>
              <option>Loading…</option>
            </select>
            <Icon name="chevron-down" size={16} className="library-select__chevron" />
          </div>
        </div>
      </>
    );
  }
  if (view.status !== 'ready' || !view.sorted.length) return null;
  const pathOf = (p: PlaylistEntry) => appPaths.playlist(p.id, p.is_default);
  return (
    <>
      <nav className="library-nav" aria-label="Your playlists">
        <h2 className="library-nav__heading">Your playlists</h2>
        <ul className="library-nav__list">
          {view.sorted.map((p) => {
            const active = p.id === selectedId;
            return (
              <li key={p.id}>
                <Link to={pathOf(p)} className={`library-nav__link${active ? ' library-nav__link--active' : ''}`} aria-current={active ? 'page' : undefined}>
                  <Icon name={p.is_default ? 'bookmark' : 'list'} size={16} />
                  <span className="library-nav__name">{p.name}</span>
                  <span className="library-nav__count">
                    <span className="visually-hidden">, </span>
                    {itemCount(p)}
                    <span className="visually-hidden">{itemCount(p) === 1 ? ' item' : ' items'}</span>
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="library-select">
        <label htmlFor="library-select" className="library-select__label">
          Playlist
        </label>
        <div className="library-select__control">
          <select
            id="library-select"
            value={selectedId ?? ''}
            onChange={(e) => {
              const p = view.sorted.find((x) => x.id === e.target.value);
              if (p) navigate(pathOf(p));
            }}
          >
            {selectedId === null ? <option value="">Choose a playlist</option> : null}
            {view.sorted.map((p) => (
              <option key={p.id} value={p.id}>
                {`${p.name} (${itemCount(p)})`}
              </option>
            ))}
          </select>
          <Icon name="chevron-down" size={16} className="library-select__chevron" />
        </div>
      </div>
    </>
  );
}

function LibraryLayout() {
  // names and counts for the navigation; the opened playlist's items come with it (PlaylistView)
  const view = usePlaylists();
  const navigate = useNavigate();
  const selectedId = useSelectedId(view);
  useSendToSignIn(view.signedOut);
  const selected = view.playlists.find((p) => p.id === selectedId);
  const fatal = view.status === 'fatal';
  const ready = view.status === 'ready';
  const canEdit = ready && !!selected && !selected.is_default;

  return (
    <div className="page library">
      <aside className="library__sidebar">
        <div className="library__toolbar" role="toolbar" aria-label="Playlist actions">
          <Button variant="primary" size="md" disabled={!ready} onClick={() => navigate(appPaths.newPlaylist)}>
            <Icon name="plus" size={16} />
            New
          </Button>
          <Button
            variant="secondary"
            size="md"
            disabled={!canEdit}
            title={ready && selected?.is_default ? 'The default playlist cannot be edited.' : undefined}
            onClick={() => selected && navigate(appPaths.editPlaylist(selected.id))}
          >
            <Icon name="edit" size={16} />
            Edit
          </Button>
        </div>
        <LibraryNav view={view} selectedId={selectedId} />
      </aside>
      <section className="library__main">
        {fatal ? (
          <div className="library__fatal">
            <title>Playlists · Lectern</title>
            <h1 className="visually-hidden">Playlists</h1>
            <ErrorState message={withTryAgain(PLAYLIST_MESSAGES.fetchFailed)} onRetry={view.refetch} retrying={view.isRefetching} />
          </div>
        ) : (
          <Outlet context={view} />
        )}
      </section>
    </div>
  );
}

export default function PlaylistsArea() {
  return (
    <RequireSignIn>
      <Routes>
        <Route element={<LibraryLayout />}>
          <Route index element={<PlaylistView />} />
          <Route path="topic/:topicSlug" element={<PlaylistView />} />
          <Route path="collection/:collectionId" element={<PlaylistView />} />
          <Route path="collection/:collectionId/topic/:topicSlug" element={<PlaylistView />} />
          <Route path="new-collection" element={<NewPlaylistPage />} />
          <Route path="edit-collection/:collectionId" element={<EditPlaylistPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </RequireSignIn>
  );
}
