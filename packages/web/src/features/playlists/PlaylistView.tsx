/**
 * One playlist (library-playlists-account.md §2 "Playlist screens", §4): heading, description (not for the
 * default playlist), the topics filter bar, '{n} item(s) in {playlist name or topic name}', and the title cards,
 * 10 at a time ("Show more" adds a page). /c/ shows the default playlist; an unknown id goes back to /c/ with the
 * WARN flash 'We could not find the playlist that you requested. Please try again soon.'
 */
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  DEFAULT_TOPIC,
  filterByTopic,
  itemCountLine,
  itemCountSubject,
  MESSAGES,
  pageOf,
  PLAYLIST_MESSAGES,
  PLAYLIST_TIMINGS,
  topicBar,
  topicNeedsExpansion,
  withTryAgain,
  type Collection,
} from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { appPaths } from '../../shared/links.ts';
import { reportError } from '../../shared/errorState.ts';
import { TitleGridSkeleton } from '../../shared/TitleGrid.tsx';
import { retryContent, useContent } from './contentStore.ts';
import { initialLibraryUi, libraryUiReducer } from './libraryState.ts';
import { PlaylistTitleCard } from '../../shared/playlists/PlaylistTitleCard.tsx';
import { usePlaylistItems, usePlaylists } from '../../shared/playlists/store.ts';
import { useLingering } from './useLingering.ts';
import { useReorder } from './useReorder.ts';
import { SubscriptionPrompt } from '../../shared/SubscriptionPrompt.tsx';

/** How long a removed title stays on screen: its queue overlay and then its banner. */
const LEAVING_MS = PLAYLIST_TIMINGS.queueOverlayMs + PLAYLIST_TIMINGS.queueFeedbackMs;
import '../../shared/TitleGrid.css';

export function PlaylistView() {
  const view = usePlaylists();
  const { collectionId, topicSlug } = useParams();
  const navigate = useNavigate();
  const entry = collectionId ? view.playlists.find((p) => p.id === collectionId) : view.defaultPlaylist;
  // the items of the playlist shown, and only of it (docs/decisions.md "Playlists and the home")
  const items = usePlaylistItems(view.status === 'ready' ? entry?.id : null);
  const playlist = items.playlist;
  const unknown = view.status === 'ready' && ((!!collectionId && !entry) || items.status === 'missing');

  useEffect(() => {
    if (!unknown) return;
    reportError('WARN', withTryAgain(PLAYLIST_MESSAGES.notFound), new Error(PLAYLIST_MESSAGES.collectionNotFound));
    navigate(appPaths.playlists, { replace: true });
  }, [unknown, navigate]);

  if (view.status === 'loading' || unknown || (entry && items.status === 'loading')) return <PlaylistSkeleton />;
  if (view.status !== 'ready') return null;
  if (entry && items.status === 'failed') return <ErrorState message={withTryAgain(PLAYLIST_MESSAGES.fetchFailed)} onRetry={view.refetch} />;
  if (!entry || !playlist) {
    return (
      <div className="playlist">
        <title>Playlists · Lectern</title>
        <h1 className="page-heading">Playlists</h1>
        <EmptyState title={PLAYLIST_MESSAGES.emptyLibrary} icon={<Icon name="playlist-add" size={32} />}>
          <p>
            Tap the playlist icon on any title to start one. <Link to={appPaths.library}>Browse the library</Link>
          </p>
        </EmptyState>
      </div>
    );
  }
  return <PlaylistContent key={playlist.id} playlist={playlist} topicSlug={topicSlug ?? DEFAULT_TOPIC.slug} />;
}

function PlaylistSkeleton() {
  return (
    <div className="playlist" aria-busy="true">
      <Skeleton style={{ width: '40%', height: '2.25rem', marginBottom: 'var(--space-5)' }} />
      <TitleGridSkeleton count={8} />
    </div>
  );
}

function PlaylistContent({ playlist, topicSlug }: { playlist: Collection; topicSlug: string }) {
  const [ui, dispatch] = useReducer(libraryUiReducer, null, () => initialLibraryUi(playlist.id, topicSlug));
  // Page load (a new topic in the address) selects it and resets the page size.
  if (ui.selectedCollectionId !== playlist.id || ui.selectedTopicSlug !== topicSlug) {
    dispatch({ type: 'pageLoaded', collectionId: playlist.id, topicSlug });
  }
  const [expanded, setExpanded] = useState(() => topicNeedsExpansion(playlist.content, topicSlug));
  const bar = topicBar(playlist.content, ui.selectedTopicSlug, expanded);
  const filtered = useMemo(() => filterByTopic(playlist.content, bar.selected), [playlist.content, bar.selected]);
  // Titles just removed from the playlist stay a moment (see useLingering); the topic filter applies to them too.
  const lingering = useLingering(playlist.content, LEAVING_MS);
  const shown = useMemo(() => {
    const leaving = new Set(lingering.filter((x) => x.leaving).map((x) => x.item.api_url));
    return filterByTopic(
      lingering.map((x) => x.item),
      bar.selected,
    ).map((item) => ({ item, leaving: leaving.has(item.api_url) }));
  }, [lingering, bar.selected]);
  const page = pageOf(shown, ui.pageSize);
  const urls = page.items.map((i) => i.item.api_url);
  const content = useContent(urls);
  const subject = itemCountSubject(playlist.name, bar.shown, bar.selected);
  const heading = playlist.name;

  // After "Show more", focus the first new title so a keyboard user carries on from there.
  const gridRef = useRef<HTMLUListElement>(null);
  const focusFrom = useRef<number | null>(null);
  const loadedCount = urls.filter((u) => content.contentMetadata[u]).length;
  useLayoutEffect(() => {
    const from = focusFrom.current;
    if (from === null || loadedCount <= from) return;
    focusFrom.current = null;
    gridRef.current?.querySelectorAll<HTMLAnchorElement>('.title-card__title a')[from]?.focus();
  }, [loadedCount]);

  // The reader's order (queue and playlists): buttons and drag and drop, on the unfiltered list only.
  const reorder = useReorder(playlist);
  const canReorder = bar.selected === DEFAULT_TOPIC.slug && playlist.content.length > 1;
  useLayoutEffect(() => {
    const target = reorder.refocus.current;
    if (!target) return;
    reorder.refocus.current = null;
    const item = [...(gridRef.current?.querySelectorAll<HTMLElement>('[data-reorder-item]') ?? [])].find((el) => el.dataset.reorderItem === target.apiUrl);
    const want = item?.querySelector<HTMLButtonElement>(`[data-move="${target.direction}"]`);
    const other = item?.querySelector<HTMLButtonElement>(`[data-move="${target.direction === 'up' ? 'down' : 'up'}"]`);
    (want && !want.disabled ? want : other)?.focus();
  }, [playlist.content, reorder.refocus]);

  const failed = content.didError && urls.some((u) => !content.contentMetadata[u] && !content.requestedContentUris.has(u) && !content.missingContentUris.has(u));
  const link = (slug: string) => appPaths.playlistTopic(playlist.id, playlist.is_default, slug);

  return (
    <div className="playlist">
      <title>{`${bar.selected !== DEFAULT_TOPIC.slug ? `${subject} · ` : ''}${heading} · Lectern`}</title>
      <header className="playlist__header">
        <p className="playlist__eyebrow">{playlist.is_default ? 'Default playlist' : 'Playlist'}</p>
        <h1 className="page-heading">{heading}</h1>
        {!playlist.is_default && playlist.description ? <p className="playlist__description">{playlist.description}</p> : null}
      </header>
      {playlist.is_default ? <SubscriptionPrompt place="queue" /> : null}

      {playlist.content.length ? (
        <nav className="topic-filter" aria-label="Filter by topic">
          <ul className="topic-filter__list">
            {bar.shown.map((t) => (
              <li key={t.slug}>
                <Link to={link(t.slug)} className="topic-filter__link" aria-current={t.slug === bar.selected ? 'page' : undefined}>
                  {t.name}
                  <span className="topic-filter__count">
                    <span className="visually-hidden">, </span>
                    {t.count}
                    <span className="visually-hidden">{t.count === 1 ? ' item' : ' items'}</span>
                  </span>
                </Link>
              </li>
            ))}
            {bar.hasMore ? (
              <li>
                <button type="button" className="topic-filter__more" aria-expanded={expanded} onClick={() => setExpanded((x) => !x)}>
                  {expanded ? PLAYLIST_MESSAGES.fewerTopics : PLAYLIST_MESSAGES.moreTopics}
                  <Icon name="chevron-down" size={14} className={expanded ? 'topic-filter__chevron--up' : undefined} />
                </button>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}

      <p className="playlist__count" aria-live="polite">
        {itemCountLine(filtered.length, subject)}
      </p>

      {!shown.length ? (
        <EmptyState title={<EmptySentence queue={playlist.is_default} />} icon={<Icon name={playlist.is_default ? 'bookmark' : 'playlist-add'} size={32} />}>
          <Link to="/">Browse the library</Link>
        </EmptyState>
      ) : (
        <>
          {failed ? <ErrorState message={MESSAGES.contentRequestFailed} onRetry={() => retryContent(urls)} retrying={content.isFetching} /> : null}
          <ul ref={gridRef} className={`title-grid${ui.animateCollectionContent ? ' title-grid--animate' : ''}`} aria-label={subject}>
            {page.items.map(({ item, leaving }, i) => {
              const meta = content.contentMetadata[item.api_url];
              if (meta) {
                const movable = canReorder && !leaving;
                const order = reorder.buttons(item.api_url, meta.title);
                const itemClass = [
                  'title-grid__item',
                  leaving ? 'title-grid__item--leaving' : null,
                  movable ? 'title-grid__item--movable' : null,
                  reorder.dragging === item.api_url ? 'title-grid__item--dragging' : null,
                  reorder.over === item.api_url && reorder.dragging !== item.api_url ? 'title-grid__item--drop' : null,
                ]
                  .filter(Boolean)
                  .join(' ');
                return (
                  <li key={item.api_url} className={itemClass} data-reorder-item={item.api_url} {...(movable ? reorder.dropTarget(item.api_url, meta.title) : {})}>
                    {movable ? (
                      <div className="reorder-bar">
                        <span
                          className="reorder-bar__handle"
                          title="Drag to reorder"
                          aria-hidden="true"
                          {...reorder.handle(item.api_url, meta.title, () => gridRef.current?.querySelector(`[data-reorder-item="${CSS.escape(item.api_url)}"]`) ?? null)}
                        >
                          <Icon name="grip" size={18} />
                        </span>
                        <span className="reorder-bar__position">
                          {order.index + 1}
                          <span className="visually-hidden"> of {order.count}</span>
                        </span>
                        <button type="button" className="reorder-bar__button" data-move="up" aria-label={`Move ${meta.title} up`} title="Move up" disabled={order.index <= 0} onClick={order.up}>
                          <Icon name="arrow-up" size={16} />
                        </button>
                        <button
                          type="button"
                          className="reorder-bar__button"
                          data-move="down"
                          aria-label={`Move ${meta.title} down`}
                          title="Move down"
                          disabled={order.index >= order.count - 1}
                          onClick={order.down}
                        >
                          <Icon name="arrow-down" size={16} />
                        </button>
                      </div>
                    ) : null}
                    <PlaylistTitleCard
                      title={item.metadata.topics.length ? { ...meta, topics: item.metadata.topics } : meta}
                      progress={content.progress[item.api_url] ?? 0}
                      eagerCover={i < 6}
                    />
                  </li>
                );
              }
              if (content.missingContentUris.has(item.api_url)) {
                return (
                  <li key={item.api_url} className="title-grid__item">
                    <div className="unavailable-card">
                      <Icon name="alert" size={20} />
                      <p>This title is no longer available.</p>
                    </div>
                  </li>
                );
              }
              if (failed) return null;
              return (
                <li key={item.api_url} className="title-grid__item" aria-hidden="true">
                  <div className="skeleton-card">
                    <Skeleton className="skeleton-card__cover" />
                    <div className="skeleton-card__body">
                      <Skeleton style={{ width: '35%', height: '0.7rem' }} />
                      <Skeleton style={{ width: '90%', height: '1rem' }} />
                      <Skeleton style={{ width: '60%', height: '0.8rem' }} />
                    </div>
                  </div>
                </li>
              );
            })}
          </ul>
          <div className="visually-hidden" role="status">
            {reorder.announcement}
          </div>
          {page.hasMore ? (
            <div className="playlist__more">
              <p className="playlist__shown">
                Showing {Math.min(page.items.length, filtered.length)} of {filtered.length}
              </p>
              <Button
                variant="secondary"
                size="lg"
                onClick={() => {
                  focusFrom.current = page.items.length;
                  dispatch({ type: 'nextPage' });
                }}
              >
                Show more
              </Button>
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}

/**
 * The spec's empty-playlist sentence with the icon where its '...' stands: the queue's bookmark for the queue
 * (its toggle adds there), the playlist icon for a playlist (its menu adds there). The icon is decoration; the
 * sentence names the control in words.
 */
function EmptySentence({ queue }: { queue: boolean }) {
  const [before, after] = (queue ? PLAYLIST_MESSAGES.emptyQueue : PLAYLIST_MESSAGES.emptyPlaylist).split(' ... ');
  return (
    <>
      {before}{' '}
      <span className="empty-state__inline-icon" aria-hidden="true">
        <Icon name={queue ? 'bookmark' : 'playlist-add'} size={14} />
      </span>{' '}
      {after}
    </>
  );
}
