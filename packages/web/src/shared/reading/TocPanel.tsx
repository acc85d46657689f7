/**
 * The slide-in table of contents (reader.md §2 and §4): cover, title, authors, publisher with year; chapters
 * nested by depth with the current one marked; for signed-in readers a percent-complete bar, completed markers
 * past 95% and an add-to-queue button per chapter. Fetched on first show. The queue is the playlists feature's one
 * cache entry (the default playlist in the playlist list), read and changed through what that feature exports, so the
 * contents and the chapter's playlist menu never disagree.
 */
import { formatMinutesRequired, LIMITS, paths, READING_MESSAGES, type TocItem, type TocResponse } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { memo, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { readerApi } from '../../api/reader.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { track } from '../analytics.ts';
import { usePlaylistActions } from '../playlists/actions.ts';
import { usePlaylists } from '../playlists/store.ts';
import { ReaderIcon } from './ReaderIcon.tsx';
import { readerKeys } from './readerKeys.ts';
import { bookProgress } from './bookProgress.ts';
import { SidePanel } from './SidePanel.tsx';
import './reading.css';

export interface TocPanelProps {
  open: boolean;
  bookId: string;
  currentHref: string;
  signedIn: boolean;
  onClose: () => void;
  /** a chapter entry was chosen: its full_path, and the reader path (with any anchor) to navigate to */
  onChapterClick: (fullPath: string, url: string) => void;
  /**
   * 'slide' (the reader's slide-in panel, the default) or 'inline': the video variant (reader.md §2), a tab of the
   * video screen's side panel, always shown, without its own heading and close button.
   */
  variant?: 'slide' | 'inline';
}

function yearOf(date: string | null): string | null {
  const m = date ? /^(\d{4})/.exec(date) : null;
  return m ? m[1]! : null;
}

export const TocPanel = memo(function TocPanel({ open, bookId, currentHref, signedIn, onClose, onChapterClick, variant = 'slide' }: TocPanelProps) {
  const inline = variant === 'inline';
  const toc = useQuery({
    queryKey: readerKeys.toc(bookId, ''),
    queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal),
    staleTime: 10 * 60_000,
  });
  const progress = useQuery({
    queryKey: readerKeys.progress(bookId),
    queryFn: ({ signal }) => readerApi.getChapterProgress(bookId, signal),
    enabled: signedIn && open,
    staleTime: 0,
  });
  // The queue: the default playlist of the one playlist list (the chapter's playlist menu reads the same entry).
  const { queueUrls: queued } = usePlaylists();
  const { addToQueue, removeFromQueue } = usePlaylistActions();
  const [pendingUrl, setPendingUrl] = useState<string | null>(null);

  // The current entry comes into view when the panel opens.
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open || !toc.data) return;
    const current = listRef.current?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!current) return;
    // Inline, only the list scrolls (never the page around it).
    if (inline) listRef.current!.scrollTop = Math.max(0, current.offsetTop - listRef.current!.clientHeight / 2);
    else current.scrollIntoView({ block: 'center' });
  }, [open, toc.data, inline]);

  const progressOf = useMemo(() => {
    const m = new Map<string, number>();
    for (const r of progress.data ?? []) m.set(r.full_path, r.top_percentage);
    return m;
  }, [progress.data]);

  const data = toc.data;
  const bookPercent = useMemo(() => (data ? bookProgress(data.chapters, progressOf) : 0), [data, progressOf]);

  const items = useMemo(
    () =>
      !data
        ? []
        : data.items.length
          ? data.items
          : data.chapters.map((c) => ({ href: c.uri, uri: c.uri, label: c.label, full_path: c.uri, depth: c.depth, children: [], selected: c.selected, minutes_required: c.minutes_required, url: c.url })),
    [data],
  );
  const onToggleQueue = useCallback(
    (url: string, add: boolean) => {
      setPendingUrl(url);
      // A failure is reported in the error bar by the playlists feature; the button is simply free again.
      (add ? addToQueue([url]) : removeFromQueue([url])).catch(() => undefined).finally(() => setPendingUrl((p) => (p === url ? null : p)));
    },
    [addToQueue, removeFromQueue],
  );

  const year = data ? yearOf(data.pub_date) : null;
  return (
    <SidePanel
      open={open}
      inline={inline}
      block="toc"
      className={inline ? 'toc--inline' : undefined}
      label="Table of contents"
      heading="Contents"
      closeLabel="Close table of contents"
      onClose={onClose}
    >
      <div className="toc__body" ref={listRef}>
        {toc.isPending ? (
          <div className="toc__loading">
            <Spinner label="Loading contents…" />
          </div>
        ) : toc.isError ? (
          <p className="toc__error" role="alert">
            {toc.error.message}
          </p>
        ) : data ? (
          <>
            <div className="toc__book">
              {data.thumbnail_tag ? <img className="toc__cover" src={data.thumbnail_tag} alt="" width={72} height={108} /> : <div className="toc__cover toc__cover--blank" aria-hidden="true" />}
              <div className="toc__meta">
                <Link to={data.detail_url} className="toc__title">
                  {data.title}
                </Link>
                {data.authors.length ? <p className="toc__authors">{data.authors.join(', ')}</p> : null}
                {data.publisher ? (
                  <p className="toc__publisher">
                    {data.publisher.name}
                    {year ? `, ${year}` : ''}
                  </p>
                ) : year ? (
                  <p className="toc__publisher">{year}</p>
                ) : null}
                {signedIn ? (
                  <div className="toc__progress">
                    <div className="toc__bar" role="progressbar" aria-label="Book progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={bookPercent}>
                      <span style={{ width: `${bookPercent}%` }} />
                    </div>
                    <span className="toc__percent">{bookPercent}% complete</span>
                  </div>
                ) : null}
              </div>
            </div>
            <BookPlaces data={data} onGo={onChapterClick} />
            <nav aria-label="Chapters">
              <TocTree
                items={items}
                bookId={bookId}
                currentHref={currentHref}
                signedIn={signedIn}
                progressOf={progressOf}
                queued={queued}
                pendingUrl={pendingUrl}
                onChapterClick={onChapterClick}
                onToggleQueue={onToggleQueue}
              />
            </nav>
          </>
        ) : null}
      </div>
    </SidePanel>
  );
});

/** Where the body matter starts (EPUB 2's guide calls it "text"), from the book's landmarks. */
const START_TYPES = ['bodymatter', 'text', 'start'];

/**
 * The book's own places (docs/decisions.md "Reading fidelity: footnotes and links out of the book"): where the text
 * starts (its landmarks) and, for a book with a print edition's page list, "go to page N" by the printed page's label
 * (xii, 42), as a citation gives it.
 */
function BookPlaces({ data, onGo }: { data: TocResponse; onGo: (fullPath: string, url: string) => void }) {
  const [page, setPage] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const start = START_TYPES.map((t) => data.landmarks.find((l) => l.type === t)).find(Boolean);
  const pages = data.page_list;
  if (!start && pages.length === 0) return null;
  const go = (place: { href: string; url: string }) => onGo(place.href.split('#')[0]!, place.url);
  return (
    <div className="toc__places">
      {start ? (
        <Link
          className="toc__start"
          to={start.url}
          onClick={(e) => {
            e.preventDefault();
            track('reader', 'toc', 'start-of-text');
            go(start);
          }}
        >
          {READING_MESSAGES.startOfText}
        </Link>
      ) : null}
      {pages.length ? (
        <form
          className="toc__page"
          onSubmit={(e) => {
            e.preventDefault();
            const wanted = page.trim().toLowerCase();
            const found = pages.find((p) => p.label.toLowerCase() === wanted);
            if (!found) return setProblem(READING_MESSAGES.noSuchPage(page.trim(), pages[0]!.label, pages.at(-1)!.label));
            setProblem(null);
            go(found);
          }}
        >
          <label htmlFor={inputId}>{READING_MESSAGES.goToPage}</label>
          <input
            id={inputId}
            className="reader-search__field toc__page-input"
            inputMode="text"
            autoComplete="off"
            value={page}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${inputId}-problem` : undefined}
            onChange={(e) => {
              setPage(e.currentTarget.value);
              setProblem(null);
            }}
          />
          <button type="submit" className="reader-chip" disabled={!page.trim()}>
            Go
          </button>
          {problem ? (
            <p className="toc__page-problem" id={`${inputId}-problem`} role="alert">
              {problem}
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}

interface TocTreeProps {
  items: TocItem[];
  bookId: string;
  /** the chapter shown; null for a subtree that does not contain it */
  currentHref: string | null;
  signedIn: boolean;
  progressOf: ReadonlyMap<string, number>;
  queued: ReadonlySet<string>;
  /** the queue toggle in flight, if any */
  pendingUrl: string | null;
  onChapterClick: (fullPath: string, url: string) => void;
  onToggleQueue: (url: string, add: boolean) => void;
}

const contains = (item: TocItem, fullPath: string): boolean => item.full_path === fullPath || item.children.some((c) => contains(c, fullPath));

/**
 * The chapter list, memoised apart from the panel and row by row: opening or closing the panel (on every chapter
 * click) re-renders none of a long book's hundreds of rows, and a chapter change only the rows on the way to the
 * old and the new chapter (each row hears of the current chapter only when its subtree holds it).
 */
const TocTree = memo(function TocTree({ items, currentHref, ...rest }: TocTreeProps) {
  return (
    <ol className="toc__list">
      {items.map((item, i) => (
        <TocRow key={`${item.href}-${i}`} item={item} currentHref={currentHref !== null && contains(item, currentHref) ? currentHref : null} {...rest} />
      ))}
    </ol>
  );
});

const TocRow = memo(function TocRow({ item, ...props }: Omit<TocTreeProps, 'items'> & { item: TocItem }) {
  const { bookId, currentHref, signedIn, progressOf, queued, pendingUrl, onChapterClick, onToggleQueue } = props;
  const current = item.full_path === currentHref && !item.href.includes('#');
  const pct = progressOf.get(item.full_path) ?? 0;
  const done = signedIn && pct > LIMITS.completedThresholdPercent;
  const apiUrl = paths.chapterApi(bookId, item.full_path);
  const inQueue = queued.has(apiUrl);
  return (
    <li className={`toc__item toc__item--depth-${Math.min(item.depth, 4)}`}>
      <div className={`toc__row${current ? ' toc__row--current' : ''}`}>
        {/* A plain anchor, not the router's Link: hundreds of Links would all re-render on every chapter change
            (each one follows the location); the click navigates in-app just the same. */}
        <a
          href={item.url}
          className="toc__link"
          aria-current={current ? 'page' : undefined}
          onClick={(e) => {
            if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
            e.preventDefault();
            performance.mark('reader:toc-click');
            track('reader', 'toc', 'chapter');
            onChapterClick(item.full_path, item.url);
          }}
        >
          <span className="toc__label">{item.label}</span>
          {item.minutes_required > 0 ? <span className="toc__minutes">{formatMinutesRequired(item.minutes_required)}</span> : null}
        </a>
        {done ? (
          <span className="toc__done" title="Completed">
            <ReaderIcon name="check" size={16} />
            <span className="visually-hidden">Completed</span>
          </span>
        ) : null}
        {signedIn && !item.href.includes('#') ? (
          <button
            type="button"
            className={`toc__queue${inQueue ? ' toc__queue--on' : ''}`}
            aria-pressed={inQueue}
            aria-label={inQueue ? `Remove ${item.label} from your queue` : `Add ${item.label} to your queue`}
            title={inQueue ? 'In your queue' : 'Add to queue'}
            disabled={pendingUrl === apiUrl}
            onClick={() => onToggleQueue(apiUrl, !inQueue)}
          >
            <ReaderIcon name={inQueue ? 'queue-check' : 'queue-add'} size={18} />
          </button>
        ) : null}
      </div>
      {item.children.length ? <TocTree items={item.children} {...props} /> : null}
    </li>
  );
});
