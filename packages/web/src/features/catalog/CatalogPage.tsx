/**
 * The catalog: every title (/library/), or the titles of one topic (/topics/:slug) or one publisher
 * (/library/publisher/:slug/), one card per work. The order (title, recently added, author) and a format filter
 * live in the address (`?sort=recent&format=document`), so they survive a reload and can be shared. Pages follow
 * the answer's `next` link through "Load more".
 */
import { useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CATALOG_SORTS, CONTENT_FORMATS, paths, type CatalogSort, type ContentFormat } from '@lectern/core';
import { FilterPill } from '../../components/FilterPill.tsx';
import { Button } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { TitleGrid, TitleGridSkeleton } from '../../shared/TitleGrid.tsx';
import { TransformationPlaylists } from '../../shared/TransformationPlaylists.tsx';
import { useSession } from '../../shared/useSession.ts';
import { useCatalog, usePublisher, useTopics, type CatalogFilter } from './useCatalog.ts';
import './CatalogPage.css';

export type CatalogKind = 'all' | 'topic' | 'publisher';

const humanize = (slug: string) => slug.replace(/[-_]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

function TopicBar({ active }: { active: string | null }) {
  const topics = useTopics();
  const barRef = useRef<HTMLElement>(null);
  // On a phone the bar scrolls sideways: bring the current topic into view. Measured in the next frame, whose
  // layout is due anyway: measuring right after the render forced a layout of its own into the render's task.
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const current = barRef.current?.querySelector<HTMLElement>('[aria-current="page"]');
      const bar = barRef.current;
      if (!current || !bar) return;
      const left = current.offsetLeft - (bar.clientWidth - current.offsetWidth) / 2;
      bar.scrollTo({ left: Math.max(0, left) });
    });
    return () => cancelAnimationFrame(frame);
  }, [active, topics.data]);
  if (topics.isPending) {
    return (
      <div className="topic-bar" aria-hidden="true">
        {[64, 96, 80, 112, 72].map((w, i) => (
          <Skeleton key={i} className="topic-bar__skeleton" style={{ width: w }} />
        ))}
      </div>
    );
  }
  if (topics.isError || !topics.data.length) return null;
  return (
    <nav className="topic-bar" aria-label="Topics" ref={barRef}>
      <ul>
        <li>
          <FilterPill to={appPaths.library} current={active === null}>
            All
          </FilterPill>
        </li>
        {topics.data.map((t) => (
          <li key={t.slug}>
            <FilterPill to={paths.topic(t.slug)} current={active === t.slug} onClick={() => track('topic', 'click', t.slug)}>
              {t.name}
              <span className="topic-bar__count">
                <span className="visually-hidden">, </span>
                {t.count}
                <span className="visually-hidden"> titles</span>
              </span>
            </FilterPill>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const SORT_LABELS: Record<CatalogSort, string> = { title: 'Title', recent: 'Recently added', author: 'Author' };
const FORMAT_LABELS: Record<ContentFormat, string> = { book: 'Books', document: 'Documents', video: 'Videos', audiobook: 'Audiobooks' };

const isSort = (value: string | null): value is CatalogSort => (CATALOG_SORTS as readonly string[]).includes(value ?? '');
const isFormat = (value: string | null): value is ContentFormat => (CONTENT_FORMATS as readonly string[]).includes(value ?? '');

/** The order and format of the list, from the address; unknown values fall back to the defaults. */
function useListOptions() {
  const [params, setParams] = useSearchParams();
  const sortParam = params.get('sort');
  const formatParam = params.get('format');
  const sort: CatalogSort = isSort(sortParam) ? sortParam : 'title';
  const format = isFormat(formatParam) ? formatParam : undefined;
  const change = (next: { sort?: CatalogSort; format?: ContentFormat | null }) => {
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next.sort !== undefined) {
          if (next.sort === 'title') updated.delete('sort');
          else updated.set('sort', next.sort);
        }
        if (next.format !== undefined) {
          if (next.format === null) updated.delete('format');
          else updated.set('format', next.format);
        }
        return updated;
      },
      { replace: true },
    );
  };
  return { sort, format, change };
}

function ListControls({ sort, format, onChange }: { sort: CatalogSort; format: ContentFormat | undefined; onChange: ReturnType<typeof useListOptions>['change'] }) {
  return (
    <div className="catalog__controls">
      <div className="catalog__formats" role="group" aria-label="Format">
        {[undefined, ...CONTENT_FORMATS].map((f) => (
          <button
            key={f ?? 'all'}
            type="button"
            className="catalog__format"
            aria-pressed={format === f}
            aria-label={f ? undefined : 'All formats'}
            onClick={() => onChange({ format: f ?? null })}
          >
            {f ? FORMAT_LABELS[f] : 'All'}
          </button>
        ))}
      </div>
      <label className="catalog__sort">
        <span>Sort by</span>
        <select value={sort} onChange={(event) => onChange({ sort: event.target.value as CatalogSort })}>
          {CATALOG_SORTS.map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

export function CatalogPage({ kind }: { kind: CatalogKind }) {
  const { slug = '' } = useParams();
  const { profile } = useSession();
  const options = useListOptions();
  const { sort, format } = options;
  const filter: CatalogFilter = useMemo(
    () => ({ ...(kind === 'topic' ? { topic: slug } : kind === 'publisher' ? { publisher: slug } : {}), sort, ...(format ? { format } : {}) }),
    [kind, slug, sort, format],
  );
  const catalog = useCatalog(filter);
  const topics = useTopics();
  const publisher = usePublisher(slug, kind === 'publisher');
  // The cards are rendered in slices (a deferred render), not in the one task the answer arrived in: a query's
  // answer re-renders synchronously, and a page of cards at once was a long task on a phone
  // (docs/decisions.md "Each screen's first answers in its page, its chunks named with it, renders in slices").
  // (with the filter they are for: another order's or format's cards are never shown, not even for one render)
  const current = useMemo(() => ({ filter, data: catalog.data }), [filter, catalog.data]);
  const deferred = useDeferredValue(current);
  const pages = deferred.filter === filter ? deferred.data : undefined;
  const titles = useMemo(() => pages?.pages.flatMap((p) => p.results) ?? [], [pages]);
  // (with the cards: a count line alone first would push the skeleton down, a layout shift)
  const count = pages?.pages[0]?.count ?? 0;

  let heading = 'Library';
  let eyebrow: string | null = null;
  if (kind === 'topic') {
    eyebrow = 'Topic';
    heading =
      topics.data?.find((t) => t.slug === slug)?.name ??
      titles.flatMap((t) => t.topics).find((t) => t.slug === slug)?.name ??
      humanize(slug);
  } else if (kind === 'publisher') {
    eyebrow = 'Publisher';
    heading = publisher.data?.name ?? humanize(slug);
  }

  // After "Load more", move keyboard focus to the first new title so the reader continues from there.
  const gridRef = useRef<HTMLUListElement>(null);
  const focusFrom = useRef<number | null>(null);
  useLayoutEffect(() => {
    const from = focusFrom.current;
    if (from === null || titles.length <= from) return;
    focusFrom.current = null;
    const links = gridRef.current?.querySelectorAll<HTMLAnchorElement>('.title-card__title a');
    links?.[from]?.focus();
  }, [titles.length]);
  useEffect(() => {
    focusFrom.current = null;
  }, [kind, slug, sort, format]);

  return (
    <div className="page catalog">
      <title>{`${heading} · Lectern`}</title>
      <header className="catalog__header">
        {eyebrow ? <p className="catalog__eyebrow">{eyebrow}</p> : null}
        <h1 className="page-heading">{heading}</h1>
        {catalog.isSuccess && count > 0 ? (
          <p className="catalog__count">
            {count} {count === 1 ? 'title' : 'titles'}
          </p>
        ) : null}
      </header>
      {kind !== 'publisher' ? <TopicBar active={kind === 'topic' ? slug : null} /> : null}
      {kind === 'topic' ? <TransformationPlaylists topic={slug} userKey={profile?.user_uuid ?? ''} /> : null}
      <ListControls sort={sort} format={format} onChange={options.change} />

      {catalog.isPending || (catalog.isSuccess && !pages) ? (
        <TitleGridSkeleton />
      ) : catalog.isError && !titles.length ? (
        <ErrorState message={catalog.error.message} onRetry={() => void catalog.refetch()} retrying={catalog.isRefetching} />
      ) : !titles.length ? (
        <EmptyState title="No titles here yet." icon={<Icon name="book" size={32} />}>
          {format ? (
            <button type="button" className="link-button" onClick={() => options.change({ format: null })}>
              Show all formats
            </button>
          ) : kind !== 'all' ? (
            <Link to={appPaths.library}>Browse the whole library</Link>
          ) : null}
        </EmptyState>
      ) : (
        <>
          <TitleGrid ref={gridRef} titles={titles} label={heading} />
          <div className="catalog__more">
            <p className="catalog__shown" role="status">
              Showing {titles.length} of {count}
            </p>
            {catalog.isFetchNextPageError ? (
              <ErrorState message={catalog.error?.message ?? ''} onRetry={() => void catalog.fetchNextPage()} retrying={catalog.isFetchingNextPage} />
            ) : catalog.hasNextPage ? (
              <Button
                variant="secondary"
                size="lg"
                busy={catalog.isFetchingNextPage}
                onClick={() => {
                  focusFrom.current = titles.length;
                  void catalog.fetchNextPage();
                }}
              >
                {catalog.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </Button>
            ) : null}
          </div>
        </>
      )}
    </div>
  );
}

export const LibraryPage = () => <CatalogPage kind="all" />;
export const TopicPage = () => <CatalogPage kind="topic" />;
export const PublisherPage = () => <CatalogPage kind="publisher" />;
