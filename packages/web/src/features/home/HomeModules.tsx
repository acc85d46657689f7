/**
 * The home's marketing modules (library-playlists-account.md §2; docs/decisions.md "The marketing modules";
 * docs/decisions.md "The marketing modules"): the tutorial block for new readers and the newsletter promo (subscribe,
 * sample, dismiss, see-all), each dismissed for good per account; and the recent items list with load-more (the newest
 * titles, paged with the catalog's cursor).
 */
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type HomeModule, type HomeModules, MARKETING_MESSAGES, RECENT_ITEMS_PAGE_SIZE } from '@lectern/core';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api, FIRST_PAGE, nextPageOf } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Icon } from '../../components/Icon.tsx';
import { appPaths, toAppPath } from '../../shared/links.ts';
import { TitleGrid } from '../../shared/TitleGrid.tsx';
import './HomeModules.css';

export const RECENT_PAGE_SIZE = RECENT_ITEMS_PAGE_SIZE;
const SEE_ALL_NEW = `${appPaths.library}?sort=recent`;

/** The reader's newsletter state and dismissed blocks (a visitor's answer says they have none). */
export function useHomeModules(userKey: string, enabled: boolean) {
  const queryClient = useQueryClient();
  const key = queryKeys.homeModules(userKey);
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => api.homeModules(signal), enabled, staleTime: 60_000 });
  const update = (change: (m: HomeModules) => HomeModules) => queryClient.setQueryData<HomeModules>(key, (m) => (m ? change(m) : m));
  return {
    modules: query.data,
    /** hidden at once; the server remembers it for the next visit (a failure shows the block again) */
    dismiss: (module: HomeModule) => {
      update((m) => ({ ...m, dismissed: [...m.dismissed, module] }));
      api.dismissHomeModule(module).catch(() => update((m) => ({ ...m, dismissed: m.dismissed.filter((d) => d !== module) })));
    },
    subscribed: () => update((m) => (m.newsletter ? { ...m, newsletter: { ...m.newsletter, subscribed: true } } : m)),
  };
}

export function TutorialBlock({ onDismiss }: { onDismiss: () => void }) {
  const headingId = useId();
  return (
    <section className="home-module home-module--tutorial" aria-labelledby={headingId} data-home-module="tutorial">
      <div className="home-module__head">
        <h2 id={headingId} className="home-module__title">
          <Icon name="book" size={20} />
          {MARKETING_MESSAGES.tutorialTitle}
        </h2>
      </div>
      <ol className="home-module__steps">
        {MARKETING_MESSAGES.tutorialSteps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      <div className="home-module__actions">
        <Button variant="secondary" size="sm" onClick={onDismiss}>
          {MARKETING_MESSAGES.tutorialDismiss}
        </Button>
      </div>
    </section>
  );
}

/** The newsletter promo: subscribe, a sample of the next email, see all new titles, or dismiss it for good. */
export function NewsletterPromo({ everyDays, onSubscribed, onDismiss }: { everyDays: number; onSubscribed: () => void; onDismiss: () => void }) {
  const headingId = useId();
  const sampleId = useId();
  const [state, setState] = useState<'idle' | 'busy' | 'done' | 'failed'>('idle');
  const [showSample, setShowSample] = useState(false);
  const sample = useQuery({ queryKey: queryKeys.newsletterSample(), queryFn: ({ signal }) => api.newsletterSample(signal), enabled: showSample, staleTime: 60_000 });
  const subscribe = () => {
    setState('busy');
    api.setNewsletter(true).then(
      () => setState('done'),
      () => setState('failed'),
    );
  };
  return (
    <section className="home-module home-module--newsletter" aria-labelledby={headingId} data-home-module="newsletter">
      <div className="home-module__head">
        <h2 id={headingId} className="home-module__title">
          <Icon name="list" size={20} />
          {MARKETING_MESSAGES.newsletterTitle}
        </h2>
      </div>
      <p className="home-module__lead">{MARKETING_MESSAGES.newsletterLead(everyDays)}</p>
      <div role="status" className="home-module__status">
        {state === 'done' ? <p>{MARKETING_MESSAGES.newsletterSubscribed}</p> : null}
        {state === 'failed' ? <p className="home-module__error">{MARKETING_MESSAGES.newsletterFailed}</p> : null}
      </div>
      <div className="home-module__actions">
        {state === 'done' ? (
          <Button variant="secondary" size="sm" onClick={onSubscribed}>
            {MARKETING_MESSAGES.tutorialDismiss}
          </Button>
        ) : (
          <Button variant="primary" size="sm" busy={state === 'busy'} onClick={subscribe}>
            {MARKETING_MESSAGES.newsletterSubscribe}
          </Button>
        )}
        <Button variant="ghost" size="sm" aria-expanded={showSample} aria-controls={sampleId} onClick={() => setShowSample((s) => !s)}>
          {MARKETING_MESSAGES.newsletterSample}
        </Button>
        <Link to={SEE_ALL_NEW} className="home-module__link">
          {MARKETING_MESSAGES.newsletterSeeAll}
        </Link>
        {state === 'done' ? null : (
          <Button variant="ghost" size="sm" onClick={onDismiss}>
            {MARKETING_MESSAGES.newsletterDismiss}
          </Button>
        )}
      </div>
      <div id={sampleId} hidden={!showSample} className="home-module__sample">
        {showSample ? (
          <>
            <h3 className="home-module__sample-title">{MARKETING_MESSAGES.newsletterSampleHeading}</h3>
            {sample.isPending ? (
              <p>{MARKETING_MESSAGES.recentLoading}</p>
            ) : sample.isError ? (
              <p className="home-module__error">{MARKETING_MESSAGES.recentFailed}</p>
            ) : sample.data.titles.length === 0 ? (
              <p>{MARKETING_MESSAGES.newsletterSampleEmpty}</p>
            ) : (
              <ul>
                {sample.data.titles.map((t) => (
                  <li key={t.book_id}>
                    <Link to={toAppPath(t.url)}>{t.title}</Link>
                  </li>
                ))}
                {sample.data.total > sample.data.titles.length ? <li>{MARKETING_MESSAGES.newsletterSampleMore(sample.data.total - sample.data.titles.length)}</li> : null}
              </ul>
            )}
          </>
        ) : null}
      </div>
    </section>
  );
}

/** The newest titles, RECENT_PAGE_SIZE at a time, following the catalog's cursor ("Load more"). */
export function RecentItems() {
  const headingId = useId();
  const recent = useInfiniteQuery({
    queryKey: queryKeys.recentTitles(),
    queryFn: ({ pageParam, signal }) => api.listBooks({ sort: 'recent', pageSize: RECENT_PAGE_SIZE, ...pageParam }, signal),
    initialPageParam: FIRST_PAGE,
    getNextPageParam: (last) => nextPageOf(last),
    staleTime: 60_000,
  });
  const gridRef = useRef<HTMLUListElement>(null);
  const shown = useRef(0);
  const titles = recent.data?.pages.flatMap((p) => p.results) ?? [];
  // After "Load more", the keyboard continues at the first new title rather than back at the button.
  useEffect(() => {
    const before = shown.current;
    shown.current = titles.length;
    if (before === 0 || titles.length <= before) return;
    gridRef.current?.querySelectorAll<HTMLElement>('.title-card__title a')[before]?.focus();
  }, [titles.length]);
  if (recent.isPending || (recent.isSuccess && titles.length === 0)) return null;
  return (
    <section className="home__section" aria-labelledby={headingId} data-home-section="recent">
      <div className="home__section-head">
        <h2 id={headingId} className="home__section-title">
          {MARKETING_MESSAGES.recentHeading}
        </h2>
      </div>
      {recent.isError && titles.length === 0 ? (
        <p className="home-module__error">{MARKETING_MESSAGES.recentFailed}</p>
      ) : (
        <TitleGrid titles={titles} ref={gridRef} label={MARKETING_MESSAGES.recentHeading} />
      )}
      <div className="home-module__more">
        {recent.isFetchNextPageError ? <p className="home-module__error" role="alert">{MARKETING_MESSAGES.recentFailed}</p> : null}
        {recent.hasNextPage ? (
          <Button variant="secondary" size="md" busy={recent.isFetchingNextPage} onClick={() => void recent.fetchNextPage()}>
            {recent.isFetchingNextPage ? MARKETING_MESSAGES.recentLoading : MARKETING_MESSAGES.recentLoadMore}
          </Button>
        ) : titles.length > RECENT_PAGE_SIZE ? (
          <p className="home-module__end">{MARKETING_MESSAGES.recentEnd}</p>
        ) : null}
      </div>
    </section>
  );
}
