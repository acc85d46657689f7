/**
 * library-playlists-account.md §6: "Expired or cancelled subscribers are told to 'subscribe' or 'reactivate' in the
 * queue section" — the home shows it above its rows and the queue's own page (/c/) above its titles. An expired
 * account subscribes or reactivates, a cancelled one (still reading until its paid period ends) reactivates; both
 * on /subscribe/, which picks the right form. Nothing for anyone else.
 */
import { ACCOUNT_ENTRY_MESSAGES as M } from '@lectern/core';
import { ButtonLink } from '../components/Button.tsx';
import { Icon } from '../components/Icon.tsx';
import { track } from './analytics.ts';
import { appPaths } from './links.ts';
import { useSession } from './useSession.ts';
import './SubscriptionPrompt.css';

export function SubscriptionPrompt({ place }: { place: 'home' | 'queue' }) {
  const { profile } = useSession();
  const status = profile?.subscription_status;
  if (status !== 'expired' && status !== 'cancelled') return null;
  const expired = status === 'expired';
  return (
    <section className="subscription-prompt" aria-label={M.subscriptionPromptLabel} data-subscription-prompt={status}>
      <Icon name="alert" size={20} />
      <p className="subscription-prompt__body">{expired ? M.expiredPrompt : M.cancelledPrompt}</p>
      <ButtonLink to={appPaths.subscribe()} size="sm" onClick={() => track('sign-up-cta', 'click', `${place}-${expired ? 'subscribe' : 'reactivate'}`)}>
        {expired ? M.subscribe : M.reactivate}
      </ButtonLink>
    </section>
  );
}
