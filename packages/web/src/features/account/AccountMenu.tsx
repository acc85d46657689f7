import { useNavigate } from 'react-router';
import { NAV_COLLAPSE_DELAY_MS, type AccountProfile } from '@lectern/core';
import { Menu } from '../../components/Menu.tsx';
import { Icon } from '../../components/Icon.tsx';
import { appPaths } from '../../shared/links.ts';
import { useLogout } from '../../shared/useSession.ts';
import { forgetCarriedEmail } from './carriedEmail.ts';
import './AccountMenu.css';

function statusLine(profile: AccountProfile): string {
  const { type, trial_ends_at } = profile.account;
  if (profile.subscription_status === 'trial' && trial_ends_at) {
    const d = new Date(trial_ends_at);
    if (!Number.isNaN(d.getTime())) {
      return `${type} · ends ${d.toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' })}`;
    }
  }
  return type;
}

export function AccountMenu({ profile }: { profile: AccountProfile }) {
  const navigate = useNavigate();
  const logout = useLogout();
  const initial = (profile.username.trim()[0] ?? '?').toUpperCase();
  return (
    <Menu
      triggerLabel={`Account: ${profile.username}`}
      collapseAfterLeaveMs={NAV_COLLAPSE_DELAY_MS}
      trigger={
        <>
          <span className="account-menu__avatar" aria-hidden="true">
            {initial}
          </span>
          <span className="account-menu__name">{profile.username}</span>
          <Icon name="chevron-down" size={14} />
        </>
      }
      header={
        <>
          <p className="account-menu__email">{profile.account.email}</p>
          <p className="account-menu__status">
            <span className="visually-hidden">Account status: </span>
            <span className={`account-menu__badge account-menu__badge--${profile.subscription_status}`}>{statusLine(profile)}</span>
          </p>
        </>
      }
      items={[
        // The top bar's links are hidden on phones: the account menu reaches the playlists there too.
        { label: 'Playlists', onSelect: () => navigate(appPaths.playlists), closeOnSelect: true },
        { label: 'Your account', onSelect: () => navigate(appPaths.account), closeOnSelect: true },
        // operators and content creators find the console here (docs/decisions.md "The operators' console, web side")
        ...(profile.account.roles.some((r) => r === 'admin' || r === 'content-creator')
          ? [{ label: "Operators' console", onSelect: () => navigate(appPaths.console), closeOnSelect: true }]
          : []),
        {
          label: logout.isPending ? 'Signing out…' : 'Sign out',
          disabled: logout.isPending,
          onSelect: () => {
            // forgotten even if the sign-out fails: whoever leaves the computer has asked to go
            forgetCarriedEmail();
            // (the promise, not mutate's own onSuccess: this menu is gone as soon as the profile is, and react-query
            // drops a call's callbacks with its component; the app then stayed where it was, signed out. A failure is
            // shown in the footer, from the mutation's state.)
            logout.mutateAsync().then(
              () => navigate(appPaths.library),
              () => undefined,
            );
          },
        },
      ]}
      footer={
        logout.isError ? (
          <p className="account-menu__error" role="alert">
            {logout.error.message}
          </p>
        ) : null
      }
    />
  );
}
