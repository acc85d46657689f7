/**
 * Title page (/library/book/:bookId/): cover, title, byline, publishers, topics, the work's formats, the queue and
 * playlist controls, details with the reading time, description, contents.
 */
import { useId, useLayoutEffect } from 'react';
import { Link, useParams } from 'react-router';
import { type AccountProfile, byline, consumeVerb, formatClock, formatLabel, formatReadingTime, paths, publisherLine, type BookDetail, MARKETING_MESSAGES } from '@lectern/core';
import { ButtonLink } from '../../components/Button.tsx';
import { Cover } from '../../components/Cover.tsx';
import { ProgressBar } from '../../components/ProgressBar.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { isApiError } from '../../api/client.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { appPaths, toAppPath } from '../../shared/links.ts';
import { useSession } from '../../shared/useSession.ts';
import { PlaylistControls } from '../../shared/playlists/PlaylistTitleCard.tsx';
import { TableOfContents } from './TableOfContents.tsx';
import { useBook } from './useBook.ts';
import { TopicChips } from '../../shared/TopicChips.tsx';
import { rememberViewed } from '../../shared/recentlyViewed.ts';
import './TitlePage.css';

function TitleSkeleton() {
  return (
    <div className="page title-page" role="status">
      <span className="visually-hidden">Loading title…</span>
      <div className="title-page__hero" aria-hidden="true">
        <div className="title-page__cover">
          <Skeleton style={{ aspectRatio: '2 / 3', width: '100%' }} />
        </div>
        <div className="title-page__info">
          <Skeleton style={{ width: '5rem', height: '0.8rem' }} />
          <Skeleton style={{ width: '80%', height: '2.2rem', marginTop: 12 }} />
          <Skeleton style={{ width: '40%', height: '1.1rem', marginTop: 12 }} />
          <Skeleton style={{ width: '55%', height: '1rem', marginTop: 8 }} />
          <Skeleton style={{ width: '10rem', height: '3rem', marginTop: 24, borderRadius: 8 }} />
          <Skeleton style={{ width: '100%', height: '0.9rem', marginTop: 32 }} />
          <Skeleton style={{ width: '95%', height: '0.9rem', marginTop: 8 }} />
          <Skeleton style={{ width: '70%', height: '0.9rem', marginTop: 8 }} />
        </div>
      </div>
    </div>
  );
}

function Paragraphs({ text }: { text: string }) {
  const parts = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <>
      {parts.map((p, i) => (
        <p key={i}>{p}</p>
      ))}
    </>
  );
}

/** "by A, B": each name isolated in its own direction and language when the book says them. */
function Byline({ book, text }: { book: BookDetail; text: string }) {
  const entries = book.author_entries;
  if (!entries?.length || entries.every((a) => !a.dir && !a.lang)) return <p className="title-page__byline">{text}</p>;
  return (
    <p className="title-page__byline">
      by{' '}
      {entries.map((a, i) => (
        <span key={`${a.name}-${i}`}>
          {i > 0 ? ', ' : null}
          <bdi dir={a.dir ?? undefined} lang={a.lang ?? undefined}>
            {a.name}
          </bdi>
        </span>
      ))}
    </p>
  );
}

function PublisherLine({ book }: { book: BookDetail }) {
  const date = publisherLine(book.issued, []);
  const entries = book.publisher_entries;
  if (!date && !entries.length && !book.publishers.length) return null;
  return (
    <p className="title-page__publisher">
      {date}
      {date && (entries.length || book.publishers.length) ? ' · ' : null}
      {entries.length
        ? entries.map((p, i) => (
            <span key={p.slug}>
              {i > 0 ? ', ' : null}
              <Link to={paths.publisher(p.slug)}>{p.name}</Link>
            </span>
          ))
        : book.publishers.join(', ')}
    </p>
  );
}

/**
 * Start or Continue, to the book's continue_url (the server's rule: where this reader left off, the sample for those
 * who may not read the whole book, else the first chapter). Continue, with the progress, once the reader has a
 * position or progress in the book. An anonymous visitor is offered the sample and a way to sign in.
 */
function StartActions({ book, signedIn }: { book: BookDetail; signedIn: boolean }) {
  const progress = book.progress ?? 0;
  const { verb, ing } = consumeVerb(book.content_format);
  const media = verb !== 'read';
  if (signedIn && (book.resumes || progress > 0)) {
    return (
      <div className="title-page__actions title-page__actions--continue">
        <ButtonLink to={toAppPath(book.continue_url)} size="lg">
          Continue
        </ButtonLink>
        <div className="title-page__progress">
          <ProgressBar percent={progress} />
        </div>
      </div>
    );
  }
  const sample = book.chapters.find((c) => c.as_sample || c.is_public);
  // A visitor's way into a video or audiobook is its preview clip, which the player plays without a session.
  if (signedIn || (!sample && !media)) {
    return (
      <div className="title-page__actions">
        <ButtonLink to={toAppPath(book.continue_url)} size="lg">
          {`Start ${ing}`}
        </ButtonLink>
      </div>
    );
  }
  return (
    <div className="title-page__actions">
      <ButtonLink to={toAppPath(book.continue_url)} size="lg">
        {verb === 'read' ? 'Read the sample' : verb === 'watch' ? 'Watch the preview' : 'Listen to the preview'}
      </ButtonLink>
      <ButtonLink to={appPaths.login(paths.titlePage(book.book_id))} size="lg" variant="secondary">
        {`Sign in to ${verb}`}
      </ButtonLink>
    </div>
  );
}

/** A book's reading time; a video course's or audiobook's length, the sum of its parts. */
function lengthDetail(b: BookDetail): [string, string][] {
  if (consumeVerb(b.content_format).verb !== 'read') {
    const ms = b.chapters.reduce((sum, c) => sum + (c.duration_ms ?? 0), 0);
    return ms > 0 ? [['Length', formatClock(ms / 1000)]] : [];
  }
  return b.minutes_required > 0 ? [['Reading time', formatReadingTime(b.minutes_required)]] : [];
}

/** Signed in with a live subscription (or a role that reads everything): samples are nothing special to them. */
function readsEverything(profile: AccountProfile | null): boolean {
  if (!profile) return false;
  return profile.account.roles.length > 0 || profile.subscription_status === 'trial' || profile.subscription_status === 'subscriber';
}

const SOURCE_NAMES: Record<string, string> = { 'application/epub+zip': 'EPUB', 'application/pdf': 'PDF' };

/** The formats of this work (an EPUB and a PDF of one book): each links to its own title page. */
function Formats({ book }: { book: BookDetail }) {
  if (book.formats.length < 2) return null;
  return (
    <nav className="title-page__formats" aria-label="Formats">
      <ul>
        {book.formats.map((f) => {
          const current = f.book_id === book.book_id;
          const name = SOURCE_NAMES[f.source] ?? formatLabel(f.content_format);
          const pages = f.page_count ? `${f.page_count} pages` : null;
          return (
            <li key={f.book_id}>
              <Link to={toAppPath(f.url)} className="title-page__format" aria-current={current ? 'page' : undefined}>
                <span className="title-page__format-name">{name}</span>
                <span className="title-page__format-kind">{[formatLabel(f.content_format).toLowerCase(), pages].filter(Boolean).join(' · ')}</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

export function TitlePage() {
  const { bookId = '' } = useParams();
  const book = useBook(bookId);
  const { profile } = useSession();
  const headingId = useId();
  const found = book.data?.book_id;
  // The home's "Last viewed" row: titles whose page opened (not an address that named nothing). A layout effect: the
  // cookie is written with the commit that shows the title, so leaving at once (Back, a link) still counts the visit.
  useLayoutEffect(() => {
    if (found) rememberViewed(found, 'title');
  }, [found]);

  if (book.isPending) return <TitleSkeleton />;
  if (book.isError) {
    if (isApiError(book.error) && book.error.status === 404) return <NotFoundPage message="We could not find that book." />;
    return (
      <div className="page">
        <ErrorState message={book.error.message} onRetry={() => void book.refetch()} retrying={book.isRefetching} />
      </div>
    );
  }

  const b = book.data;
  const by = byline(b.authors);
  const details: [string, string][] = [
    ['Format', formatLabel(b.content_format)],
    ...(b.page_count ? [['Pages', String(b.page_count)] as [string, string]] : []),
    ...(b.language ? [['Language', b.language] as [string, string]] : []),
    ['Chapters', String(b.chapters.length)],
    ...lengthDetail(b),
  ];

  return (
    <div className="page title-page">
      <title>{`${b.title} · Lectern`}</title>
      <nav className="title-page__crumbs" aria-label="Breadcrumb">
        <ol>
          <li>
            <Link to="/library/">Library</Link>
          </li>
          <li aria-current="page">{b.title}</li>
        </ol>
      </nav>
      <div className="title-page__hero">
        <div className="title-page__cover">
          <Cover title={b.title} authors={b.authors} src={b.cover_image_url} size="large" eager />
        </div>
        <div className="title-page__info">
          <p className="title-page__label">{formatLabel(b.content_format)}</p>
          {/* The title and each author in the direction and language the book gives them (an Arabic title in a
              catalog of English ones reads right to left, and a screen reader speaks it in its language). */}
          <h1 className="title-page__title" id={headingId} dir={b.title_dir ?? undefined} lang={b.title_lang ?? undefined}>
            {b.title}
          </h1>
          {by ? <Byline book={b} text={by} /> : null}
          <PublisherLine book={b} />
          <TopicChips topics={b.topics} className="title-page__topics" />
          <Formats book={b} />
          <div className="title-page__action-row">
            <StartActions book={b} signedIn={Boolean(profile)} />
            <div className="title-page__playlist">
              <PlaylistControls
                content={{ apiUrl: b.api_url, contentFormat: b.content_format, topics: b.topics, title: b.title }}
                describedBy={headingId}
              />
            </div>
          </div>
          {b.buy_url ? (
            // the operator's bookshop (BUY_LINK_TEMPLATE, docs/decisions.md "The marketing modules"): another site, so
            // a plain link that names it
            <p className="title-page__buy">
              <a href={b.buy_url} rel="noopener noreferrer external" data-buy-link>
                {MARKETING_MESSAGES.buyLink}
                <span className="visually-hidden"> {MARKETING_MESSAGES.buyLinkNote}</span>
              </a>
            </p>
          ) : null}
          <dl className="title-page__details">
            {details.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>

      <div className="title-page__sections">
        {b.description ? (
          <section className="title-page__section" aria-labelledby="about-heading">
            <h2 id="about-heading" className="title-page__section-heading">
              About this title
            </h2>
            <div className="title-page__description">
              <Paragraphs text={b.description} />
            </div>
          </section>
        ) : null}
        <section className="title-page__section" aria-labelledby="contents-heading">
          <h2 id="contents-heading" className="title-page__section-heading">
            Contents
          </h2>
          <TableOfContents book={b} signedIn={!!profile} showSamples={!readsEverything(profile)} />
        </section>
      </div>
    </div>
  );
}

export default TitlePage;
