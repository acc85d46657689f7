/**
 * The topic form after sign-up (library-playlists-account.md §2 "topic-selection form after sign-up"): the welcome
 * message with the trial's end, then the library's topics to pick from; the choice feeds the home's
 * recommendations. Skipping is fine: nothing here is required.
 */
import { useQuery } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, ONBOARDING_TOPICS_MAX, WELCOME_MESSAGE_MS } from '@lectern/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import './LoginPage.css';
import './OnboardingPage.css';

const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric' });

export function OnboardingPage() {
  const { profile, isLoading } = useSession();
  const signIn = useSignInPath(!isLoading && !profile);
  const location = useLocation();
  const navigate = useNavigate();
  const topics = useQuery({ queryKey: queryKeys.topics, queryFn: ({ signal }) => api.listTopics(signal) });
  const chosen = useQuery({ queryKey: ['chosen-topics'], queryFn: ({ signal }) => api.getChosenTopics(signal), enabled: !!profile });
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (chosen.data) setPicked(new Set(chosen.data.map((t) => t.slug)));
  }, [chosen.data]);

  if (isLoading) return <PageLoading />;
  if (!profile) return <Navigate to={signIn} replace />;

  const trialEnd = (location.state as { trialEndsAt?: string | null } | null)?.trialEndsAt ?? profile.account.trial_ends_at;
  const toggle = (slug: string) =>
    setPicked((now) => {
      const next = new Set(now);
      if (next.has(slug)) next.delete(slug);
      else if (next.size < ONBOARDING_TOPICS_MAX) next.add(slug);
      return next;
    });

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await api.chooseTopics([...picked]);
      track('account', 'sign-up-completed', 'topic-form', picked.size);
      navigate(appPaths.home, { replace: true });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setSaving(false);
    }
  };

  return (
    <div className="login onboarding">
      <title>Pick your topics · Lectern</title>
      <div className="login__panel onboarding__panel">
        {trialEnd ? (
          <Notice tone="success" role="status" className="onboarding__welcome" fadeAfterMs={WELCOME_MESSAGE_MS}>
            {ACCOUNT_ENTRY_MESSAGES.welcome(dateFormat.format(new Date(trialEnd)))}{' '}
            <Link to={appPaths.subscribe()} onClick={() => track('sign-up-cta', 'click', 'welcome-subscribe')}>
              {ACCOUNT_ENTRY_MESSAGES.welcomeSubscribe}
            </Link>
          </Notice>
        ) : null}
        <h1 className="login__heading">What do you want to learn?</h1>
        <p className="login__lede">Pick a few topics and we will put the titles for them on your home page.</p>
        {error ? (
          <Notice tone="error" role="alert" className="login__notice">
            {error}
          </Notice>
        ) : null}
        <form className="onboarding__form" onSubmit={(e) => void onSubmit(e)}>
          <fieldset className="onboarding__topics" disabled={saving}>
            <legend className="visually-hidden">Topics</legend>
            {topics.isPending ? <p className="onboarding__empty">Loading topics…</p> : null}
            {topics.data?.length === 0 ? <p className="onboarding__empty">The library has no topics yet.</p> : null}
            {topics.data?.map((topic) => (
              <label key={topic.slug} className={`onboarding__topic${picked.has(topic.slug) ? ' onboarding__topic--picked' : ''}`}>
                <input type="checkbox" checked={picked.has(topic.slug)} onChange={() => toggle(topic.slug)} />
                <span>{topic.name}</span>
                <span className="onboarding__count" aria-label={`${topic.count} titles`}>
                  {topic.count}
                </span>
              </label>
            ))}
          </fieldset>
          <div className="onboarding__actions">
            <Button type="submit" size="lg" busy={saving}>
              {saving ? ACCOUNT_ENTRY_MESSAGES.justASecond : picked.size ? `Save ${picked.size} topic${picked.size === 1 ? '' : 's'}` : 'Continue'}
            </Button>
            <Link to={appPaths.library}>Skip for now</Link>
          </div>
        </form>
      </div>
    </div>
  );
}

export default OnboardingPage;
