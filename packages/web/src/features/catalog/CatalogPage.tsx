/**
 * The catalog: every title (/library/), or the titles of one topic (/topics/:slug) or one publisher
 * (/library/publisher/:slug/). Pages follow the answer's `next` link through "Load more".
 */
import { useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { paths } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { appPaths } from '../../shared/links.ts';
import { TitleGrid, TitleGridSkeleton } from '../../shared/TitleGrid.tsx';
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
          <Link to={appPaths.library} className="topic-bar__link" aria-current={active === null ? 'page' : undefined}>
            All
          </Link>
        </li>
        {topics.data.map((t) => (
          <li key={t.slug}>
            <Link to={paths.topic(t.slug)} className="topic-bar__link" aria-current={active === t.slug ? 'page' : undefined}>
              {t.name}
              <span className="topic-bar__count">
                <span className="visually-hidden">, </span>
                {t.count}
                <span className="visually-hidden"> titles</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function CatalogPage({ kind }: { kind: CatalogKind }) {
  const { slug = '' } = useParams();
  const filter: CatalogFilter = useMemo(
    () => (kind === 'topic' ? { topic: slug } : kind === 'publisher' ? { publisher: slug } : {}),
    [kind, slug],
  );
  const catalog = useCatalog(filter);
  const topics = useTopics();
  const publisher = usePublisher(slug, kind === 'publisher');
  const titles = useMemo(() => catalog.data?.pages.flatMap((p) => p.results) ?? [], [catalog.data]);
  const count = catalog.data?.pages[0]?.count ?? 0;

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
  }, [kind, slug]);

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

      {catalog.isPending ? (
        <TitleGridSkeleton />
      ) : catalog.isError && !titles.length ? (
        <ErrorState message={catalog.error.message} onRetry={() => void catalog.refetch()} retrying={catalog.isRefetching} />
      ) : !titles.length ? (
        <EmptyState title="No titles here yet." icon={<Icon name="book" size={32} />}>
          {kind !== 'all' ? <Link to={appPaths.library}>Browse the whole library</Link> : null}
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
