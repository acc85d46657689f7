/** The frame of every page: skip link, top bar (logo, main navigation, account) and the main landmark. */
import { useEffect } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigationType } from 'react-router';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import { ErrorBar } from './ErrorBar.tsx';
import { ScrollTopButton } from './ScrollTopButton.tsx';
import { ButtonLink } from '../components/Button.tsx';
import { Icon } from '../components/Icon.tsx';
import { AccountMenu } from '../features/account/AccountMenu.tsx';
import { SubscribeNag } from '../features/account/SubscribeNag.tsx';
import { HeaderSearch } from '../features/search/HeaderSearch.tsx';
import { searchPaths } from '@lectern/core';
import { useSession } from '../shared/useSession.ts';
import { PlaylistsSync } from '../features/playlists/PlaylistsSync.tsx';
import { appPaths } from '../shared/links.ts';
import { useShellChromeCovered } from '../shared/shellChrome.ts';
import { LiveTrainingBanner } from '../shared/live-training/LiveTrainingBanner.tsx';
import { ShortcutsRoot } from '../shared/shortcuts/ShortcutsRoot.tsx';
import './Shell.css';

function AccountArea() {
  const location = useLocation();
  const { profile, isLoading } = useSession();
  if (isLoading) return <span className="topbar__account-placeholder" aria-hidden="true" />;
  if (profile) return <AccountMenu profile={profile} />;
  if (location.pathname.startsWith('/login')) return null;
  const here = location.pathname + location.search + location.hash;
  return (
    <>
      {location.pathname.startsWith(appPaths.register) ? null : (
        <ButtonLink to={appPaths.register} variant="primary" size="md" className="topbar__join">
          Start free trial
        </ButtonLink>
      )}
      <ButtonLink to={appPaths.login(here)} variant="secondary" size="md">
        Sign in
      </ButtonLink>
    </>
  );
}

function Logo() {
  return (
    <Link to={appPaths.home} className="topbar__logo">
      <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" fill="#0c5b63" />
        <path d="M8 9h6.5a3 3 0 0 1 3 3v12a2.5 2.5 0 0 0-2.5-2.5H8z" fill="#e5f1f1" />
        <path d="M24 9h-4.5a2 2 0 0 0-2 2v13a2.5 2.5 0 0 1 2.5-2.5H24z" fill="#9fd3d6" />
      </svg>
      <span>Lectern</span>
    </Link>
  );
}

/** Where the main navigation and the header's search field fold away (phones), these links take their place. */
function BrowseLink() {
  return (
    <Link to={appPaths.library} className="topbar__browse">
      <Icon name="book" size={16} />
      <span>Browse the library</span>
    </Link>
  );
}

function PhoneSearchLink() {
  return (
    <Link to={searchPaths.searchPage('*')} className="topbar__browse topbar__search-link" aria-label="Search the library">
      <Icon name="search" size={16} />
    </Link>
  );
}

/**
 * New pages open at the top; going back or forward is left to the browser's own scroll restoration; an address
 * with a #fragment is left to the page, which scrolls to its anchor.
 */
function ScrollToTop() {
  const { pathname, hash } = useLocation();
  const type = useNavigationType();
  useEffect(() => {
    if (type !== 'POP' && !hash) window.scrollTo(0, 0);
  }, [pathname, hash, type]);
  return null;
}

export function Shell() {
  const location = useLocation();
  const { profile } = useSession();
  // The reader's immersive view covers the chrome: covered controls leave the tab order too.
  const covered = useShellChromeCovered();
  return (
    <div className="shell">
      <a href="#main" className="skip-link" inert={covered}>
        Skip to content
      </a>
      <header className="topbar" inert={covered}>
        <div className="topbar__inner">
          <Logo />
          <nav className="topbar__nav" aria-label="Main">
            <NavLink to={appPaths.home} end className="topbar__navlink">
              Home
            </NavLink>
            <NavLink to={appPaths.library} end className="topbar__navlink">
              Library
            </NavLink>
            {profile ? (
              <NavLink to={appPaths.playlists} className="topbar__navlink">
                Playlists
              </NavLink>
            ) : null}
          </nav>
          <HeaderSearch />
          <PhoneSearchLink />
          <BrowseLink />
          <div className="topbar__account">
            <AccountArea />
          </div>
        </div>
      </header>
      {/* The reader shows the banner in its own chrome (and polls for it there). */}
      {location.pathname.startsWith('/library/view/') ? null : <LiveTrainingBanner />}
      <main id="main" tabIndex={-1} className="shell__main">
        <ErrorBoundary resetKey={location.pathname}>
          <Outlet />
        </ErrorBoundary>
      </main>
      <footer className="shell__footer" inert={covered}>
        <p>Lectern · your technical library</p>
      </footer>
      <SubscribeNag />
      <ErrorBar />
      {profile ? <PlaylistsSync /> : null}
      {/* signed-in readers only (§6); the reader keeps its own chrome; not over the operators' console's controls */}
      {profile && !location.pathname.startsWith('/library/view/') && !location.pathname.startsWith('/admin/') ? <ScrollTopButton /> : null}
      <ScrollToTop />
      <ShortcutsRoot />
    </div>
  );
}
