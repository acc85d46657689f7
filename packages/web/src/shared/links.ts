/**
 * Addresses of the web app's own screens that core's `paths` does not cover (login, library), and the two
 * rules about addresses that come from outside: server-provided URLs and the `next` parameter.
 */

const seg = encodeURIComponent;

export const appPaths = {
  /** The home dashboard (library-playlists-account.md §1: /home/), where a signed-in reader lands. */
  home: '/home/',
  library: '/library/',
  /** Sign-in page that returns to `next` afterwards. */
  login: (next?: string) => (next ? `/login/?${new URLSearchParams({ next }).toString()}` : '/login/'),
  /** Playlist area (library-playlists-account.md §2): the default playlist. */
  playlists: '/c/',
  /** A playlist's page; the default one lives at /c/ so its address stays stable. */
  playlist: (id: string, isDefault = false) => (isDefault ? '/c/' : `/c/collection/${seg(id)}/`),
  /** A playlist filtered by topic; 'all' is the unfiltered page. */
  playlistTopic: (id: string, isDefault: boolean, topicSlug: string) =>
    topicSlug === 'all'
      ? appPaths.playlist(id, isDefault)
      : isDefault
        ? `/c/topic/${seg(topicSlug)}/`
        : `/c/collection/${seg(id)}/topic/${seg(topicSlug)}/`,
  newPlaylist: '/c/new-collection/',
  /** Registration into a free trial (docs/decisions.md "Joining"). */
  register: '/register/',
  forgotPassword: '/forgot-password/',
  /** The account page (library-playlists-account.md §1: /u). */
  account: '/u',
  /** Subscribe or upgrade (§1: /subscribe/), with a plan chosen in advance. */
  subscribe: (plan?: 'basic' | 'pro') => (plan ? `/subscribe/?plan=${plan}` : '/subscribe/'),
  /** The team sign-up page (§2 "team sign-up page with add-another-member"; core's teamPaths.signUpPage). */
  teamSignUp: '/teams/new/',
  editPlaylist: (id: string) => `/c/edit-collection/${seg(id)}/`,
  /** The operators' console (docs/decisions.md "The operators' console, web side"), its own chunk (features/admin). */
  console: '/admin/',
} as const;

/**
 * The server gives `url` and `continue_url` as paths; should one ever arrive absolute on our own origin, turn it
 * into a path so react-router can navigate without a page load. Foreign URLs stay as they are.
 */
export function toAppPath(url: string): string {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  if (typeof window === 'undefined') return url;
  try {
    const u = new URL(url, window.location.href);
    if (u.origin === window.location.origin) return u.pathname + u.search + u.hash;
  } catch {
    /* keep as is */
  }
  return url;
}

/** Core's: the server names the first card's cover in the catalog's page with it (routes/web.ts). */
export { cardCoverUrl } from '@lectern/core';
