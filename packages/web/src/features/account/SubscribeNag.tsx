/**
 * The subscribe nag (library-playlists-account.md §2, §4): for visitors and trial readers, a bar at the foot of the
 * page that starts collapsed, slides up 0.5 s after the page opens, and opens or closes on a click. Left out where it
 * would stand in the way: the reader (which has its own end-of-sample bridge), the joining pages themselves and the
 * operators' console (where it covered the console's controls); never shown to an admin, who runs the library
 * (docs/decisions.md "The first operator, from the browser").
 * Its panel also links to the team offering (§2 "link from a nag bar to the business offering").
 */
import { ACCOUNT_ENTRY_MESSAGES, NAG_SLIDE_UP_MS } from '@lectern/core';
import { useEffect, useId, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { ButtonLink } from '../../components/Button.tsx';
import { Icon } from '../../components/Icon.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { useSession } from '../../shared/useSession.ts';
import { formatDate } from './money.ts';
import './SubscribeNag.css';

const HIDDEN_ON = ['/library/view/', '/register/', '/login/', '/subscribe/', '/welcome/', '/forgot-password/', '/reset-password/', '/setup/', '/admin/'];

export function SubscribeNag() {
  const { profile, isLoading } = useSession();
  const { pathname } = useLocation();
  const [shown, setShown] = useState(false);
  const [open, setOpen] = useState(false);
  const panelId = useId();
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), NAG_SLIDE_UP_MS);
    return () => clearTimeout(timer);
  }, []);

  const trial = profile?.subscription_status === 'trial';
  if (isLoading || (profile && (!trial || profile.account.roles.includes('admin'))) || HIDDEN_ON.some((p) => pathname.startsWith(p))) return null;

  const summary = trial
    ? `Your free trial ends on ${formatDate(profile.account.trial_ends_at)}.`
    : 'Read the whole library free: start a trial.';
  return (
    <aside className={`nag${shown ? ' nag--shown' : ''}${open ? ' nag--open' : ''}`} aria-label="Subscribe">
      <button type="button" className="nag__toggle" aria-expanded={open} aria-controls={panelId} onClick={() => (setOpen(!open), track('subscribe-nag', open ? 'close' : 'open', trial ? 'trial' : 'visitor'))}>
        <span className="nag__summary">{summary}</span>
        <Icon name="chevron-down" size={16} />
      </button>
      <div id={panelId} className="nag__panel" hidden={!open}>
        <p>
          {trial
            ? 'Keep your queue, playlists, notes and reading positions: choose a plan before the trial ends, and nothing stops.'
            : 'Start a free trial: the whole library, a queue and playlists, highlights and notes, and your place kept in every book on every device.'}
        </p>
        <div className="nag__actions">
          <ButtonLink to={trial ? appPaths.subscribe() : appPaths.register} size="md" onClick={() => track('sign-up-cta', 'click', trial ? 'nag-choose-plan' : 'nag')}>
            {trial ? 'Choose a plan' : 'Start free trial'}
          </ButtonLink>
          {/* §2 "link from a nag bar to the business offering" */}
          <Link to={appPaths.teamSignUp} className="nag__team" onClick={() => track('sign-up-cta', 'click', 'nag-teams')}>
            {ACCOUNT_ENTRY_MESSAGES.teamOffer}
          </Link>
        </div>
      </div>
    </aside>
  );
}
