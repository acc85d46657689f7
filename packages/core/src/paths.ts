/**
 * Addresses of the contract, built in one place. The server uses them to fill `api_url`, `url`, `continue_url`
 * and chapter urls; the web app uses them to link. Segments are percent-encoded per path segment so chapter
 * paths with folders keep their slashes.
 */
import type { ExportFormat } from './annotations.ts';
import { CATALOG_PAGE_SIZE, ONBOARDING_LOCATION } from './constants.ts';

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export const paths = {
  /** The playlist calls as the web client makes them (library-playlists-account.md §7: base path /nest/api, service path /api/v2) */
  collections: () => '/nest/api/api/v2/collections/',
  collection: (id: string) => `/nest/api/api/v2/collections/${encodeURIComponent(id)}/`,
  /** GET: the queue's items; POST and DELETE a bare JSON array of item urls */
  queue: () => '/api/v1/queue-simple/',
  /** GET /api/v1/book/: the catalog list (its `next` and `previous` links start here too) */
  bookList: () => '/api/v1/book/',
  bookApi: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/`,
  chapterApi: (bookId: string, fullPath: string) => `${paths.chapterApiPrefix(bookId)}${encodePath(fullPath)}`,
  /** What every chapter address of a book starts with (the reader frame resolves links against it). */
  chapterApiPrefix: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/chapter/`,
  /**
   * reader.md §3's slash-less form: "a path of the form api/v1/book/{book_id}/chapter/{chapter_href}". The href is
   * written as stored (not re-encoded), as the archive endpoints have always sent it.
   */
  chapterArchive: (bookId: string, href: string) => `api/v1/book/${bookId}/chapter/${href}`,
  /** GET /api/v1/book/{book_id}/chapter-progress/ */
  chapterProgress: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/chapter-progress/`,
  /** GET /api/v1/book/{book_id}/scripted-frame/?path=: a scripted title's chapter frame (docs/decisions.md "Scripted titles") */
  scriptedFrame: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/scripted-frame/`,
  /** GET|PUT|DELETE /api/v1/book/{book_id}/scripts-consent/: the reader's answer to running a scripted title's scripts (docs/decisions.md "Scripted publications") */
  scriptsConsent: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/scripts-consent/`,
  cover: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/cover`,
  /** GET /api/v1/player/kaltura_session/?reference_id=: the video session of a media title (reader.md §7) */
  mediaSession: (bookId: string) => `/api/v1/player/kaltura_session/?reference_id=${encodeURIComponent(bookId)}`,
  /** GET /api/v1/player/support/: the support address the video-failure page names */
  mediaSupport: () => '/api/v1/player/support/',
  /** GET|HEAD /api/v1/media/{book_id}/{href}: a media part's stream, without its `?ks=` (media.ts ChapterMedia) */
  mediaStream: (bookId: string, fullPath: string) => `/api/v1/media/${encodeURIComponent(bookId)}/${encodePath(fullPath)}`,
  /** the part's captions (WebVTT) */
  mediaCaptions: (bookId: string, fullPath: string) => `${paths.mediaStream(bookId, fullPath)}/captions.vtt`,
  /** the title's preview clip, for anyone */
  mediaPreview: (bookId: string) => `/api/v1/media/${encodeURIComponent(bookId)}/preview`,
  /** reader.md §2: /library/view/{title_safe}/{book_id}/{chapter_full_path} */
  reader: (titleSafe: string, bookId: string, fullPath?: string) =>
    `/library/view/${encodeURIComponent(titleSafe)}/${encodeURIComponent(bookId)}/${fullPath ? encodePath(fullPath) : ''}`,
  titlePage: (bookId: string) => `/library/book/${encodeURIComponent(bookId)}/`,
  topic: (slug: string) => `/topics/${encodeURIComponent(slug)}`,
  publisher: (slug: string) => `/library/publisher/${encodeURIComponent(slug)}/`,
} as const;

// ---- Moved here from search.ts, account-entry.ts, annotations.ts and teams.ts: the web app's entry builds these
// addresses, and those modules define zod schemas (docs/decisions.md).

/** library-playlists-account.md §7: `POST /debug/` with a message field, served in debug or test mode only. */
export const debugPaths = {
  message: () => '/debug/',
} as const;

export const searchPaths = {
  /** GET: catalog search with facets (`catalogSearchQuerySchema` -> `catalogSearchResponseSchema`) */
  catalog: () => '/api/v2/search/',
  /** GET ?q=: header suggestions */
  suggest: () => '/api/v2/search/suggest/',
  /** GET ?query=&identifier=&page=: reader.md §7 in-book search, `{results, total, page}` */
  inBook: () => '/api/v2/search/book/',
  /** POST: reader.md §3 search-selection tracking */
  selection: () => '/api/v2/search/selection/',
  /** GET: the home dashboard's sections for whoever asks */
  home: () => '/api/v2/home/',
  /** POST: library-playlists-account.md §7 recommendation action */
  recommendationAction: () => '/r/api/',
  /** web pages */
  searchPage: (q: string) => `/search/?q=${encodeURIComponent(q)}`,
  noResultsPage: (q: string) => `/noresults/?q=${encodeURIComponent(q)}`,
  homePage: () => '/home/',
} as const;

/**
 * The first operator's set-up (docs/decisions.md "The first operator, from the browser"): while no admin account
 * exists, the start prints a one-time link to the page `/setup/?token=` that creates the first admin from the browser.
 */
export const firstOperatorPaths = {
  /** the page the printed link opens */
  page: (token?: string) => (token === undefined ? '/setup/' : `/setup/?token=${encodeURIComponent(token)}`),
  /** GET ?token=: {live}; POST {token, email, password}: creates the first admin, signed in (404 once dead) */
  api: () => '/api/v1/admin/first-operator/',
} as const;

export const accountEntryPaths = {
  /** POST: the registration form's action (JSON or a form post) */
  register: () => '/register/',
  /** GET ?email=: is this address free to register? */
  emailCheck: () => '/api/v2/account/email-check/',
  /** POST {password, email?, field_name?}: the server's password rule, said in words */
  passwordValidation: () => '/api/v2/account/password-validation/',
  /** GET the topics a reader chose; PUT {topics: [slug]} to choose them (the onboarding form) */
  topics: () => '/api/v2/account/topics/',
  /** GET ?code=&plan=: §3 "Promotion response" (the code is matched lower-cased) */
  promotionRedeem: () => '/api/v2/account/promotion/',
  /** GET: the plans and their prices */
  plans: () => '/api/v2/plans/',
  /** GET the reader's subscription and invoices; POST {plan, promotion_code?} subscribes or changes plan */
  subscription: () => '/api/v2/account/subscription/',
  /** POST: cancel at the end of the paid period */
  cancel: () => '/api/v2/account/subscription/cancel/',
  /** POST: undo a cancellation within the paid period, or subscribe again after it {plan, promotion_code?} */
  reactivate: () => '/api/v2/account/subscription/reactivate/',
  /** POST {current_password, new_password}: the other sessions are signed out */
  password: () => '/api/v2/account/password/',
  /** POST {current_password, email} */
  email: () => '/api/v2/account/email/',
  /** DELETE: sign out every other session of the account */
  otherSessions: () => '/api/v2/account/sessions/others/',
  /** POST {email}: sends a one-time link if an account uses the address (the answer is the same either way) */
  passwordReset: () => '/api/v2/account/password-reset/',
  /** GET ?token= (is the link still good?); POST {token, new_password} */
  passwordResetConfirm: () => '/api/v2/account/password-reset/confirm/',
  /** web pages */
  forgotPasswordPage: () => '/forgot-password/',
  resetPasswordPage: (token: string) => `/reset-password/?token=${encodeURIComponent(token)}`,
  subscribePage: () => '/subscribe/',
  accountPage: () => '/u',
  registerPage: () => '/register/',
  onboardingPage: () => ONBOARDING_LOCATION,
} as const;

export const annotationPaths = {
  /**
   * reader.md §7: the store prefix of one chapter. Without `chapterHref` it is the book's prefix: search and
   * read/update/delete by id work there across the book's chapters (the notes panel), creating does not.
   */
  prefix: (titleSafe: string, bookId: string, chapterHref?: string) =>
    `/nest/api/a/${encodeURIComponent(titleSafe)}/${encodeURIComponent(bookId)}${chapterHref ? `/${encodePath(chapterHref)}` : ''}`,
  /** POST (create) and GET (index); Annotator clients append `/annotations`, the spec writes `annotations/`: both */
  annotations: (prefix: string) => `${prefix}/annotations/`,
  annotation: (prefix: string, id: string) => `${prefix}/annotations/${encodeURIComponent(id)}`,
  search: (prefix: string) => `${prefix}/search`,
  /** GET: the token text (§7) */
  token: () => '/auth/token',
  /** POST {fragment}: the fragment sanitised (§7) */
  sanitizeFragment: () => '/a/sanitize-fragment/',
  /** GET: the caller's own annotations of a book, as Markdown or JSON (ours; docs/decisions.md) */
  export: (bookId: string, format: ExportFormat) => `/api/v2/annotations/${encodeURIComponent(bookId)}/export/?format=${format}`,
} as const;

export const teamPaths = {
  /** GET: the caller's team (`{team: null}` when they are in none) */
  mine: () => '/api/v1/team/',
  /** POST {name, plan, seats, emails}: buy seats (the caller becomes the owner) */
  create: () => '/api/v1/teams/',
  /** GET: one team (its owner, an admin, or a member; 404 for anyone else) */
  team: (id: number | string) => `/api/v1/teams/${id}/`,
  /** PUT {seats}: change the seat count (more seats raise an invoice) */
  seats: (id: number | string) => `/api/v1/teams/${id}/seats/`,
  /** POST {emails}: invite by email */
  invitations: (id: number | string) => `/api/v1/teams/${id}/invitations/`,
  /** DELETE: revoke a pending invitation */
  invitation: (id: number | string, invitationId: number | string) => `/api/v1/teams/${id}/invitations/${invitationId}/`,
  /** DELETE: remove a member (the owner, an admin), or leave (the member themself) */
  member: (id: number | string, userUuid: string) => `/api/v1/teams/${id}/members/${encodeURIComponent(userUuid)}/`,
  /** POST: the team's subscription ends at the end of its paid period */
  cancel: (id: number | string) => `/api/v1/teams/${id}/cancel/`,
  /** POST: undo a cancellation within the paid period, or buy the seats again after it */
  reactivate: (id: number | string) => `/api/v1/teams/${id}/reactivate/`,
  /** GET ?token=: what an invitation link offers; POST {token, password?}: accept it */
  invitationByToken: () => '/api/v1/team-invitations/',
  /** web pages */
  signUpPage: () => '/teams/new/',
  acceptPage: (token: string) => `/teams/join/?token=${encodeURIComponent(token)}`,
} as const;

/**
 * The marketing modules of library-playlists-account.md §2 (docs/decisions.md "The marketing modules"): newsletter,
 * home blocks, buy links.
 */
export const marketingPaths = {
  /** GET: what the home's blocks need for this reader (newsletter state, dismissed blocks) */
  homeModules: () => '/api/v1/home/modules/',
  /** POST {module}: a home block dismissed for good (remembered per account) */
  homeDismissals: () => '/api/v1/home/dismissals/',
  /** PUT {subscribed}: opt in to the newsletter of what is new, or out */
  newsletterSubscription: () => '/api/v1/newsletter/subscription/',
  /** GET: the next newsletter as it stands (the promo's sample) */
  newsletterSample: () => '/api/v1/newsletter/sample/',
  /** GET ?token= what an unsubscribe link stands for; POST {token} unsubscribes (no sign-in needed) */
  newsletterUnsubscribe: () => '/api/v1/newsletter/unsubscribe/',
  /** GET ?topic=: the editors' transformation playlists (all topics when none is given) */
  transformationPlaylists: () => '/api/v1/transformation-playlists/',
  /** GET: the editor's own playlists (not the default one), each with the topic it is published under or null */
  transformationOwn: () => '/api/v2/admin/transformation-playlists/',
  /** PUT {topic} publishes an editor's own playlist under a topic; DELETE unpublishes it (editors: admins, content creators) */
  transformationPlaylist: (collectionId: string) => `/api/v2/admin/transformation-playlists/${encodeURIComponent(collectionId)}/`,
  /** the web page an email's unsubscribe link opens */
  unsubscribePage: (token: string) => `/newsletter/unsubscribe/?token=${encodeURIComponent(token)}`,
} as const;

/** What firstScreenRequests reads of a page's query (URLSearchParams has it; core has no DOM types). */
export interface PageQuery {
  get(name: string): string | null;
  getAll(name: string): string[];
  keys(): Iterable<string>;
}

/** A query string as URLSearchParams writes it (application/x-www-form-urlencoded), which is how the client asks. */
function formQuery(params: [string, string][]): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return params.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

/**
 * The API answers a signed-in reader's screen renders its first content from, as the web client asks for them (the same
 * path and query string, byte for byte): the server writes them into that page (packages/server/src/routes/ web.ts) and
 * the client takes them instead of asking (packages/web/src/api/boot.ts). Without it (docs/decisions.md "Each screen's
 * first answers in its page, its chunks named with it, renders in slices") each screen's largest paint waited for one
 * more round trip after the app had started. Only the addresses as a screen opens by default (the home, a playlist, a
 * search with its words alone, the catalog unfiltered); any other asks as before.
 */
export function firstScreenRequests(pathname: string, query: PageQuery): string[] {
  const only = (...names: string[]) => [...query.keys()].every((k) => names.includes(k));
  if (pathname === searchPaths.homePage()) return [searchPaths.home(), marketingPaths.homeModules()];
  if (pathname === '/library/' && only()) return [`${paths.bookList()}?${formQuery([['page', '1'], ['page_size', String(CATALOG_PAGE_SIZE.default)]])}`];
  const playlist = /^\/c\/collection\/([^/]+)\/$/.exec(pathname);
  if (playlist && only()) {
    try {
      // the light list first: the playlist's items are asked for once it has named the playlist; the queue, which
      // the page waits for before it shows a playlist (the queue toggles on its cards), a round trip after the list
      return [`${paths.collections()}?content=none`, paths.collection(decodeURIComponent(playlist[1]!)), paths.queue()];
    } catch {
      return []; // not an address the app would have made
    }
  }
  const q = query.get('q');
  if (pathname === '/search/' && q && only('q') && query.getAll('q').length === 1) {
    return [`${searchPaths.catalog()}?${formQuery([['q', q], ['page', '1'], ['sort', 'relevance']])}`];
  }
  return [];
}

/**
 * The variant of a server-given cover address that title cards show (library-playlists-account.md §2: the 360h
 * variant): a tenth of the bytes of the book's own cover.
 */
export function cardCoverUrl(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}h=360`;
}

/** A playlist's answer (paths.collection) among a page's first answers, as far as the first screen reads it. */
function firstPlaylistItem(url: string, answer: unknown): string | null {
  if (url.includes('?') || !/^\/nest\/api\/api\/v2\/collections\/[^/]+\/$/.test(url)) return null;
  const first = (answer as { content?: { api_url?: unknown }[] } | null)?.content?.[0]?.api_url;
  return typeof first === 'string' ? first : null;
}

/**
 * The titles whose covers a screen's first content shows first but whose answers do not carry them: a playlist's
 * first item (its card's cover comes from POST /api/v1/metadata/, asked after the first render). The server looks
 * their covers up (routes/web.ts) and passes them to firstScreenImages.
 */
export function firstScreenTitles(answers: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(answers)
    .map(([url, answer]) => firstPlaylistItem(url, answer))
    .filter((u): u is string => u !== null);
}

/**
 * The image a screen's first content shows first, from its first answers (firstScreenRequests) and the metadata of
 * firstScreenTitles: the catalog's first card's cover, a playlist's first card's cover, as the card asks for it. The
 * server names it in the page as a preload (routes/web.ts), so it loads beside the app's code instead of once the
 * card has been rendered: on a phone that cover is the largest paint.
 */
export function firstScreenImages(
  answers: Readonly<Record<string, unknown>>,
  metadata: readonly { api_url?: unknown; cover_image_url?: unknown }[] = [],
): string[] {
  const images: string[] = [];
  const add = (cover: unknown) => {
    if (typeof cover === 'string' && cover.startsWith('/')) images.push(cardCoverUrl(cover));
  };
  for (const [url, answer] of Object.entries(answers)) {
    if (url.startsWith(`${paths.bookList()}?`)) add((answer as { results?: { cover_image_url?: unknown }[] } | null)?.results?.[0]?.cover_image_url);
    const item = firstPlaylistItem(url, answer);
    if (item !== null) add(metadata.find((m) => m.api_url === item)?.cover_image_url);
  }
  return images;
}
