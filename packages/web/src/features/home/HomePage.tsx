/**
 * The home dashboard (/home/, library-playlists-account.md §2 "Dense home dashboard sections"): announcements, then
 * rows of 3 title cards (continue reading, queue, last viewed, new, recommended, editors' picks, popular, trending
 * in your topics, videos, audio books, case studies) and the topics to browse. The server leaves out what is
 * empty. A visitor gets calls to action at the top, the middle and the bottom.
 *
 * Keys (§9 shortcuts): J / K move between cards, D drops the focused recommendation, Shift+Enter opens the
 * focused card's book.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { HOME_MESSAGES, HOME_ROW_SIZE, paths, type ContentMetadata, type HomeResponse } from '@lectern/core';
import { useCallback, useDeferredValue, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { ButtonLink } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { TitleGridSkeleton } from '../../shared/TitleGrid.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths, toAppPath } from '../../shared/links.ts';
import { normalizeUri } from '../../shared/playlists/actions.ts';
import { PlaylistTitleCard } from '../../shared/playlists/PlaylistTitleCard.tsx';
import { usePlaylists } from '../../shared/playlists/store.ts';
import { SubscriptionPrompt } from '../../shared/SubscriptionPrompt.tsx';
import { useSession } from '../../shared/useSession.ts';
import { NewsletterPromo, RecentItems, TutorialBlock, useHomeModules } from './HomeModules.tsx';
import { TransformationPlaylists } from '../../shared/TransformationPlaylists.tsx';
import type { KeyLike } from '../../shared/shortcuts/registry.ts';
import { useShortcuts } from '../../shared/shortcuts/useShortcut.ts';
import { useFirstVisit } from './useFirstVisit.ts';
import './HomePage.css';

type Section = HomeResponse['sections'][number];

/** Where a section's "See all" leads, when a full listing of it exists. */
const SEE_ALL: Partial<Record<Section['key'], string>> = {
  queue: appPaths.playlists,
  new: `${appPaths.library}?sort=recent`,
  popular_videos: `${appPaths.library}?format=video`,
  audio_books: `${appPaths.library}?format=audio`,
  case_studies: paths.topic('case-studies'),
};

export function HomePage() {
  const { profile, isLoading: sessionLoading } = useSession();
  const userKey = profile?.user_uuid ?? '';
  const firstVisit = useFirstVisit(profile?.user_uuid ?? null);
  const home = useQuery({
    queryKey: queryKeys.home(userKey),
    queryFn: ({ signal }) => api.home(signal),
    enabled: !sessionLoading,
    staleTime: 30_000,
  });
  // The sections' cards are rendered in slices (a deferred render), not in the one task the answer arrived in: a
  // query's answer re-renders synchronously, and the whole dashboard at once was a long task on a phone
  // (docs/decisions.md "Each screen's first answers in its page, its chunks named with it, renders in slices").
  // (with the reader it is for: another reader's dashboard is never shown, not even for one render)
  const current = useMemo(() => ({ userKey, data: home.data }), [userKey, home.data]);
  const deferred = useDeferredValue(current);
  const shown = deferred.userKey === userKey ? deferred.data : undefined;
  const modules = useHomeModules(userKey, !sessionLoading && Boolean(profile));
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const pageRef = useRef<HTMLDivElement>(null);
  const queryClient = useQueryClient();

  const reject = (title: ContentMetadata, position: number, system: string) => {
    setDropped((d) => new Set(d).add(title.book_id));
    setNotice(HOME_MESSAGES.rejected(title.title));
    api
      .recommendationAction({ title_id: title.book_id, action: 'reject', client_type: 'web', context: 'homepage', recommender_system: system, recommendation_position: position })
      // The next visit asks the server again: what it recommends then leaves this one out.
      .then(() => queryClient.invalidateQueries({ queryKey: queryKeys.home(userKey), refetchType: 'none' }))
      .catch(() => {
        setDropped((d) => {
          const next = new Set(d);
          next.delete(title.book_id);
          return next;
        });
        setNotice(HOME_MESSAGES.loadFailed);
      });
  };

  useHomeKeys(pageRef, (card) => {
    const section = home.data?.sections.find((s) => s.key === 'recommended');
    const index = section?.titles.findIndex((t) => t.book_id === card) ?? -1;
    if (section && index >= 0) reject(section.titles[index]!, index, section.recommender_system ?? 'topics');
  });

  if (sessionLoading || home.isPending) return <HomeSkeleton />;
  if (home.isError)
    return (
      <div className="page">
        <ErrorState message={HOME_MESSAGES.loadFailed} onRetry={() => void home.refetch()} retrying={home.isRefetching} />
      </div>
    );
  if (!shown) return <HomeSkeleton />;

  const data = shown;
  const sections = data.sections
    .map((s) => (s.key === 'recommended' ? { ...s, titles: s.titles.filter((t) => !dropped.has(t.book_id)) } : s))
    .filter((s) => s.titles.length > 0);
  const visitor = !profile;
  const middle = Math.min(2, sections.length);
  const dismissed = new Set(modules.modules?.dismissed ?? []);
  const newsletter = modules.modules?.newsletter;

  return (
    <div className="page home" ref={pageRef}>
      <h1 className={visitor ? 'visually-hidden' : 'page-heading home__heading'}>{visitor ? 'Lectern' : (firstVisit ? HOME_MESSAGES.welcome : HOME_MESSAGES.welcomeBack)(profile?.username ?? '')}</h1>
      {data.announcements.length ? (
        <section className="home__announcements" aria-label={HOME_MESSAGES.headings.announcements}>
          <ul>
            {data.announcements.map((a) => (
              <li key={a.id} className="home__announcement">
                <Icon name="alert" size={16} />
                {a.url ? <AnnouncementLink url={a.url}>{a.message}</AnnouncementLink> : <span>{a.message}</span>}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {visitor ? <VisitorCall place="top" /> : null}
      {/* an expired or cancelled reader is told in the queue's row, or here when the queue is empty */}
      {!visitor && !sections.some((s) => s.key === 'queue') ? <SubscriptionPrompt place="home" /> : null}
      {modules.modules && !visitor && !dismissed.has('tutorial') ? <TutorialBlock onDismiss={() => modules.dismiss('tutorial')} /> : null}
      <div role="status" className="home__notice-region">
        {notice ? (
          <p className="home__notice">
            <span>{notice}</span>
            <button type="button" className="home__notice-close" onClick={() => setNotice(null)}>
              <Icon name="close" size={14} />
              <span className="visually-hidden">{HOME_MESSAGES.dismiss}</span>
            </button>
          </p>
        ) : null}
      </div>
      {sections.length === 0 ? <EmptyState title={HOME_MESSAGES.emptyLibrary} icon={<Icon name="book" size={28} />} /> : null}
      {sections.map((s, i) => (
        <HomeSection key={s.key} section={s} onReject={s.key === 'recommended' ? reject : undefined} after={visitor && i === middle - 1 ? <VisitorCall place="middle" /> : null} />
      ))}
      {newsletter && !newsletter.subscribed && !dismissed.has('newsletter') ? (
        <NewsletterPromo everyDays={newsletter.every_days} onSubscribed={modules.subscribed} onDismiss={() => modules.dismiss('newsletter')} />
      ) : null}
      <TransformationPlaylists userKey={userKey} />
      <RecentItems />
      {data.topics.length ? <TopicsToBrowse topics={data.topics} /> : null}
      {visitor ? <VisitorCall place="bottom" /> : null}
    </div>
  );
}

function AnnouncementLink({ url, children }: { url: string; children: ReactNode }) {
  const to = toAppPath(url);
  return to.startsWith('/') ? <Link to={to}>{children}</Link> : <a href={url}>{children}</a>;
}

function HomeSection({ section, onReject, after }: { section: Section; onReject?: (t: ContentMetadata, position: number, system: string) => void; after: ReactNode }) {
  const headingId = useId();
  const more = SEE_ALL[section.key];
  const system = section.recommender_system ?? 'topics';
  return (
    <>
      <section className="home__section" aria-labelledby={headingId} data-home-section={section.key}>
        <div className="home__section-head">
          <h2 id={headingId} className="home__section-title">
            {section.heading}
          </h2>
          {more ? (
            <Link to={more} className="home__see-all">
              {HOME_MESSAGES.seeAll}
              <span className="visually-hidden">: {section.heading}</span>
            </Link>
          ) : null}
        </div>
        {section.key === 'queue' ? <SubscriptionPrompt place="queue" /> : null}
        <ul className="home__row">
          {section.titles.slice(0, HOME_ROW_SIZE).map((t, i) => (
            <li key={t.book_id} className="home__card" data-home-card={t.book_id} data-continue={t.continue_url}>
              <PlaylistTitleCard title={t} headingLevel={3} eagerCover={i < HOME_ROW_SIZE} />
              {onReject ? <RecommendationTracking title={t} position={i} system={system} onReject={() => onReject(t, i, system)} /> : null}
            </li>
          ))}
        </ul>
      </section>
      {after}
    </>
  );
}

/**
 * A recommended card's own controls and tracking (§7 POST /r/api/): "Not interested" rejects it; opening it is a
 * 'view' and putting it in the queue (with the card's own queue toggle) a 'queue'. Tracking failures are only
 * logged: they never get in the reader's way.
 */
function RecommendationTracking({ title, position, system, onReject }: { title: ContentMetadata; position: number; system: string; onReject: () => void }) {
  const playlists = usePlaylists();
  const inQueue = playlists.status === 'anonymous' ? false : playlists.queueUrls.has(normalizeUri(title.api_url));
  const wasQueued = useRef(inQueue);
  const ref = useRef<HTMLDivElement>(null);
  const track = useCallback(
    (action: 'queue' | 'view') =>
      void api
        .recommendationAction({ title_id: title.book_id, action, client_type: 'web', context: 'homepage', recommender_system: system, recommendation_position: position })
        .catch((e: unknown) => console.warn('recommendation action not recorded', e)),
    [title.book_id, system, position],
  );
  // A 'queue' when the card goes into the queue, not when it is drawn already in it (nor again if track changes).
  useEffect(() => {
    if (inQueue && !wasQueued.current) track('queue');
    wasQueued.current = inQueue;
  }, [inQueue, track]);
  useEffect(() => {
    const card = ref.current?.parentElement;
    const onClick = (e: MouseEvent) => {
      if ((e.target as HTMLElement | null)?.closest('a')) track('view');
    };
    card?.addEventListener('click', onClick);
    return () => card?.removeEventListener('click', onClick);
  }, [track]);
  return (
    <div className="home__reject" ref={ref}>
      <button type="button" className="home__reject-button" onClick={onReject} aria-keyshortcuts="D" aria-label={`${HOME_MESSAGES.notInterested}: ${title.title}`}>
        <Icon name="close" size={14} />
        {HOME_MESSAGES.notInterested}
      </button>
    </div>
  );
}

function TopicsToBrowse({ topics }: { topics: HomeResponse['topics'] }) {
  const headingId = useId();
  return (
    <section className="home__section" aria-labelledby={headingId}>
      <h2 id={headingId} className="home__section-title">
        {HOME_MESSAGES.headings.topics}
      </h2>
      <ul className="home__topics">
        {topics.map((t) => (
          <li key={t.slug}>
            <Link to={paths.topic(t.slug)} className="home__topic" onClick={() => track('topic', 'click', t.slug)}>
              {t.name}
              <span className="home__topic-count">{t.count}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

const VISITOR_TEXT = {
  top: { title: HOME_MESSAGES.visitorTitle, lead: HOME_MESSAGES.visitorLead },
  middle: { title: null, lead: HOME_MESSAGES.visitorMiddle },
  bottom: { title: null, lead: HOME_MESSAGES.visitorBottom },
} as const;

/** The anonymous home's calls to action (§2: top, middle and bottom). */
function VisitorCall({ place }: { place: keyof typeof VISITOR_TEXT }) {
  const text = VISITOR_TEXT[place];
  return (
    <div className={`home__cta home__cta--${place}`}>
      {text.title ? <p className="home__cta-title">{text.title}</p> : null}
      <p className="home__cta-lead">{text.lead}</p>
      <div className="home__cta-actions">
        <ButtonLink to={appPaths.register} variant="primary" size="md" onClick={() => track('sign-up-cta', 'click', `home-${place}`)}>
          {HOME_MESSAGES.startTrial}
        </ButtonLink>
        {place === 'top' ? (
          <ButtonLink to={appPaths.login(appPaths.home)} variant="secondary" size="md">
            {HOME_MESSAGES.signIn}
          </ButtonLink>
        ) : null}
      </div>
    </div>
  );
}

function HomeSkeleton() {
  return (
    <div className="page home">
      <TitleGridSkeleton count={HOME_ROW_SIZE} />
    </div>
  );
}

/**
 * J / K between cards, D on a recommended card, Shift+Enter opens the focused card's book: bound to the shortcut
 * registry (shared/shortcuts), which keeps them from fields, modifiers, the reader's setting and phones. Not with a
 * menu or dialog open.
 */
function useHomeKeys(pageRef: React.RefObject<HTMLDivElement | null>, rejectCard: (bookId: string) => void) {
  const navigate = useNavigate();
  const cardsHere = (e: KeyLike) => {
    const page = pageRef.current;
    if (!page || document.querySelector('[role="dialog"], [role="menu"]')) return null;
    const cards = [...page.querySelectorAll<HTMLElement>('[data-home-card]')];
    const current = (e.target as HTMLElement | null)?.closest?.<HTMLElement>('[data-home-card]') ?? null;
    return { cards, current, at: current ? cards.indexOf(current) : -1 };
  };
  const focusCard = (card: HTMLElement | undefined) => card?.querySelector<HTMLElement>('.title-card__title a')?.focus();
  const move = (step: 1 | -1) => (e: KeyLike) => {
    const here = cardsHere(e);
    if (!here) return false;
    const next = here.cards[step === 1 ? Math.min(here.cards.length - 1, here.at + 1) : Math.max(0, here.at - 1)];
    if (!next) return false;
    focusCard(next);
  };
  useShortcuts({
    'next-card': move(1),
    'previous-card': move(-1),
    reject: (e) => {
      const here = cardsHere(e);
      if (!here?.current?.closest('[data-home-section="recommended"]')) return false;
      const fallback = here.cards[here.at + 1] ?? here.cards[here.at - 1];
      rejectCard(here.current.dataset.homeCard!);
      focusCard(fallback);
    },
    open: (e) => {
      const here = cardsHere(e);
      if (!here?.current?.dataset.continue) return false;
      void navigate(toAppPath(here.current.dataset.continue));
    },
  });
}
export default HomePage;
