/**
 * The attack suite's route table (docs/decisions.md "The permanent attack suite: what its table says where the spec is
 * silent"): an entry for every route the real app registers, keyed "METHOD url" as Fastify registered it
 * (`lectern.routes`). route-table.test.ts fails when the app has a route this table lacks (or the table one the app
 * lacks), so a new route cannot escape the access matrix, the CSRF check, the fuzz and the concurrent creations, which
 * all read their routes from here. Beside the app's own routes: the scripted origin's listener (SCRIPTED_ROUTE_TABLE),
 * the web app's pages (WEB_PAGE_TABLE, router.tsx's addresses) and its build's files (WEB_FILE_TABLE), each held to
 * what registers or declares them by route-table.test.ts too.
 *
 * access — who gets past the gate:
 *   public   anyone, signed in or not
 *   account  any signed-in account, whatever its subscription
 *   reader   an account with a live subscription (trial or paid; an expired reader gets 403)
 *   creator  the operators' content parts: content creators and admins
 *   admin    admins only
 *   debug    POST /debug/, present in debug or test mode only
 *   annotator the annotation store: its x-annotator-auth-token header, never the session cookie
 *   capability a signed token in the query (a video session's `ks`): 403 to whoever comes without one
 *   frame    the scripted origin's address token, bound to the browser that opened it first: 404 to any other
 * params — which of the world's objects (world.ts) fills each path parameter.
 * owned — the path names the victim reader's own object: every other account gets 401, 403 or 404 there, never
 *   the object; `probe` is a request the victim makes to show the filled path is really theirs.
 * body / query — a well-formed request, so that refusals are not just a validator's 400.
 * create — the route makes a row: 200 identical requests at once make one (concurrency.test.ts).
 */
import { SERVED_BUILD_FILES } from '../helpers/web-dist.ts';

export type Access = 'public' | 'account' | 'reader' | 'creator' | 'admin' | 'debug' | 'annotator' | 'capability' | 'frame';

/**
 * Where a route is answered: the app's own routes (the default); `scripted`, the scripted origin's listener
 * (scripted-origin.ts, its own Fastify app); `page`, an address of the web app answered with index.html by the app's
 * not-found handler (routes/web.ts); `file`, a file of the web app's build (the static plugin registers one GET each).
 */
export type Served = 'app' | 'scripted' | 'page' | 'file';

export interface RouteSpec {
  access: Access;
  params?: Record<string, string>;
  owned?: boolean;
  body?: unknown;
  query?: Record<string, string>;
  /**
   * The route makes rows: 200 identical requests at once make what one makes (attack.test.ts). `succeed`: how many
   * of them succeed (one, the others told it exists; all, the route being idempotent; some, where a request that
   * loses the race to its twin answers as done while a later repeat is told it exists). `body` replaces the
   * table's, `{n}` in it being 'one' for the reference request and 'two' for the 200 (`{nid}` twelve hex digits). `caller`: 'fresh' for a new
   * account per request set (a reader owns one team). `replaces`: the route replaces a whole set, measured against
   * the same set sent alone.
   */
  create?: { succeed: 'one' | 'all' | 'some'; body?: unknown; caller?: 'fresh'; replaces?: boolean };
  /** a multipart upload: fuzzed bodies go as JSON and are refused */
  multipart?: boolean;
  /** why a role past the gate may still be answered 401 or 403 here (the reason, for the reader of the table) */
  mayDeny?: string;
  /** tables a refusal of this route writes on purpose, and why */
  refusalWrites?: { tables: string[]; why: string };
  /** owned, but admins manage it too (they pass, and see it) */
  operators?: boolean;
  /** where it is answered (Served); the app's own routes when absent */
  served?: Exclude<Served, 'app'>;
}

const book = { bookId: 'book' };
const playlist = { id: 'playlist' };
const team = { id: 'team' };
const note = { title: 'bookTitle', bookId: 'book', '*': 'note' };

export const ROUTE_TABLE: Record<string, RouteSpec> = {
  // ---- health, sign-in, the account ----
  'GET /healthz': { access: 'public' },
  'POST /login/': { access: 'public', mayDeny: 'wrong credentials are a 401', body: { email: 'nobody@example.com', password: 'wrong password here' } },
  'POST /logout/': { access: 'public' },
  'POST /api/v2/account/password/': { access: 'account', body: { old_password: 'wrong password here', new_password1: 'x', new_password2: 'y' } },
  'POST /api/v2/account/email/': { access: 'account', body: { email: 'not an email' } },
  'DELETE /api/v2/account/sessions/others/': { access: 'account' },
  'GET /u/information_for_javascript': { access: 'account' },
  'GET /api/v1/account/shortcuts/': { access: 'account' },
  'PUT /api/v1/account/shortcuts/': { access: 'account', body: { enabled: false } },
  'POST /register/': { access: 'public', body: { email: 'x' } },
  'GET /api/v2/account/email-check/': { access: 'public', query: { email: 'someone@example.com' } },
  'POST /api/v2/account/password-validation/': { access: 'public', body: { password: 'a long enough password' } },
  'POST /api/v2/account/password-reset/': { access: 'public', body: { email: 'not an email' } },
  'GET /api/v2/account/password-reset/confirm/': { access: 'public', query: { token: 'no-such-token' } },
  'POST /api/v2/account/password-reset/confirm/': { access: 'public', body: { token: 'no-such-token', new_password1: 'x', new_password2: 'x' } },
  'GET /api/v2/account/topics/': { access: 'account' },
  'PUT /api/v2/account/topics/': { access: 'account', body: { topics: ['fiction'] }, create: { succeed: 'all', replaces: true } },
  'GET /api/v2/plans/': { access: 'public' },
  'GET /api/v2/account/promotion/': { access: 'public', query: { code: 'nothing' } },
  'GET /api/v2/account/subscription/': { access: 'account' },
  'POST /api/v2/account/subscription/': { access: 'account', body: { plan: 'nothing' } },
  'POST /api/v2/account/subscription/cancel/': { access: 'account' },
  'POST /api/v2/account/subscription/reactivate/': { access: 'account' },
  // ---- selling (operators) ----
  'PUT /api/v2/admin/plans/:slug/': { access: 'admin', params: { slug: 'plan' }, body: { price: 'x' } },
  'GET /api/v2/admin/promotion-codes/': { access: 'admin' },
  'POST /api/v2/admin/promotion-codes/': { access: 'admin', body: { code: 'ATTACK-CODE', kind: 'percent', amount: 10, plan: 'pro' }, create: { succeed: 'one', body: { code: 'ATTACK-{n}', kind: 'percent', amount: 10, plan: 'pro' } } },
  'PATCH /api/v2/admin/promotion-codes/:code/': { access: 'admin', params: { code: 'promo' }, body: { amount: 'x' } },
  'GET /api/v2/admin/promotion-codes/:code/redemptions/': { access: 'admin', params: { code: 'promo' } },
  'GET /api/v2/admin/invoices/': { access: 'admin' },
  'POST /api/v2/admin/invoices/:id/paid/': { access: 'admin', params: { id: 'invoice' }, body: { paid_at: 'x' } },
  'GET /api/v1/admin/teams/': { access: 'admin' },
  'GET /api/v1/admin/teams/:teamId/': { access: 'admin', params: { teamId: 'team' } },
  'PUT /api/v1/admin/teams/:teamId/seats/': { access: 'admin', params: { teamId: 'team' }, body: { seats: 'x' } },
  'PUT /api/v1/admin/teams/:teamId/owner/': { access: 'admin', params: { teamId: 'team' }, body: { email: 'x' } },
  'DELETE /api/v1/admin/teams/:teamId/members/:userId/': { access: 'admin', params: { teamId: 'team', userId: 'nobody' } },
  // ---- the first operator's set-up link (printed at first start; the token is the gate) ----
  'GET /api/v1/admin/first-operator/': { access: 'public', query: { token: 'forged' } },
  'POST /api/v1/admin/first-operator/': { access: 'public', body: { token: 'forged', email: 'first@example.com', password: 'a long enough password' } },
  // ---- teams ----
  'GET /api/v1/team/': { access: 'account' },
  'POST /api/v1/teams/': { access: 'account', body: { name: 'Attack Team', plan: 'pro', seats: 2, emails: [] }, create: { succeed: 'one', caller: 'fresh' } },
  'GET /api/v1/teams/:id/': { access: 'account', params: team, owned: true, operators: true },
  'PUT /api/v1/teams/:id/seats/': { access: 'account', params: team, owned: true, operators: true, body: { seats: 9 } },
  'POST /api/v1/teams/:id/invitations/': { access: 'account', params: team, owned: true, operators: true, body: { emails: ['attacker-guest@example.com'] }, create: { succeed: 'some', body: { emails: ['guest-{n}@example.com'] } } },
  'DELETE /api/v1/teams/:id/invitations/:invitationId/': { access: 'account', params: { id: 'team', invitationId: 'invitation' }, owned: true, operators: true },
  'DELETE /api/v1/teams/:id/members/:uuid/': { access: 'account', params: { id: 'team', uuid: 'member' }, owned: true, operators: true },
  'POST /api/v1/teams/:id/cancel/': { access: 'account', params: team, owned: true, operators: true },
  'POST /api/v1/teams/:id/reactivate/': { access: 'account', params: team, owned: true, operators: true },
  'GET /api/v1/team-invitations/': { access: 'public', query: { token: 'no-such-token' } },
  'POST /api/v1/team-invitations/': { access: 'public', body: { token: 'no-such-token' } },
  // ---- finding ----
  'GET /api/v2/search/': { access: 'public', query: { q: 'chapter' } },
  'GET /api/v2/search/suggest/': { access: 'public', query: { q: 'cha' } },
  // past the sample, passages for readers only (search.test.ts)
  'GET /api/v2/search/book/': { access: 'public', query: { identifier: '{book}', query: 'chapter' } },
  'POST /api/v2/search/selection/': { access: 'public', body: { rank: 0, epubarchive_identifier: '{book}', scope: 'book', content_type: 'book', selection_type: 'passage', url: '{chapterUrl}', query: 'chapter', session_id: 's' } },
  // ---- the operators' console ----
  'GET /api/v1/admin/audit/': { access: 'admin' },
  'GET /api/v1/admin/titles/': { access: 'creator' },
  'GET /api/v1/admin/names/': { access: 'creator' },
  'GET /api/v1/admin/titles/:bookId/': { access: 'creator', params: book },
  'PATCH /api/v1/admin/titles/:bookId/': { access: 'creator', params: book, body: { title: '' } },
  'POST /api/v1/admin/titles/:bookId/retire/': { access: 'creator', params: book, body: { version: -1 } },
  'POST /api/v1/admin/titles/:bookId/restore/': { access: 'creator', params: book, body: { version: -1 } },
  'GET /api/v1/admin/titles/:bookId/warnings/': { access: 'creator', params: book },
  'PUT /api/v1/admin/titles/:bookId/scripts/': { access: 'creator', params: book, body: { allow_scripts: false } },
  'GET /api/v1/admin/titles/:bookId/readers/': { access: 'admin', params: book },
  'PUT /api/v1/admin/titles/:bookId/cover/': { access: 'creator', params: book, multipart: true },
  'GET /api/v1/admin/users/': { access: 'admin' },
  'POST /api/v1/admin/users/': { access: 'admin', body: { email: 'made-by-attack@example.com', status: 'trial' }, create: { succeed: 'one', body: { email: 'made-{n}@example.com', password: 'a long enough password', status: 'trial' } } },
  'GET /api/v1/admin/users/:userId/': { access: 'admin', params: { userId: 'victimUser' } },
  'PATCH /api/v1/admin/users/:userId/': { access: 'admin', params: { userId: 'victimUser' }, body: { status: 'x' } },
  'POST /api/v1/admin/users/:userId/password-reset/': { access: 'admin', params: { userId: 'nobody' } },
  'POST /api/v1/admin/users/:userId/end-sessions/': { access: 'admin', params: { userId: 'nobody' } },
  'GET /api/v1/admin/dashboard/': { access: 'admin' },
  'GET /api/v1/admin/health/': { access: 'admin' },
  'GET /api/v1/admin/analytics/': { access: 'admin' },
  'POST /api/v1/admin/import/': { access: 'creator', multipart: true, refusalWrites: { tables: ['audit_log', 'import_jobs'], why: 'an import whose every file failed is audited (plugins/admin-audit.ts), and its job keeps the reason (services/import-jobs.ts)' } },
  'PATCH /api/v1/admin/book/:bookId/chapter/*': { access: 'creator', params: { bookId: 'book', '*': 'chapterPath' }, body: { x: 1 } },
  // ---- the home, editors' picks, announcements ----
  'GET /api/v2/home/': { access: 'public' },
  'POST /r/api/': { access: 'account', body: { action: 'x' } },
  'GET /api/v2/admin/editors-picks/': { access: 'admin' },
  'PUT /api/v2/admin/editors-picks/': { access: 'admin', body: { book_ids: ['{book}'] }, create: { succeed: 'all', replaces: true, body: { book_ids: ['{book}', '{hostileBook}'] } } },
  'GET /api/v2/admin/announcements/': { access: 'admin' },
  'POST /api/v2/admin/announcements/': { access: 'admin', body: { text: 'x' } },
  'DELETE /api/v2/admin/announcements/:id/': { access: 'admin', params: { id: 'announcement' } },
  // ---- live training ----
  'GET /api/v1/live-training/current-event/': { access: 'public' },
  'GET /api/v1/live-training/course-statuses/': { access: 'public' },
  'GET /api/v1/admin/live-training/courses/': { access: 'admin' },
  'POST /api/v1/admin/live-training/courses/': { access: 'admin', body: { title: 'Attack Course', topics: ['Speed'] }, create: { succeed: 'one', body: { title: 'Attack Course {n}', topics: ['Speed'] } } },
  'DELETE /api/v1/admin/live-training/courses/:id/': { access: 'admin', params: { id: 'nobody' } },
  'POST /api/v1/admin/live-training/courses/:id/events/': { access: 'admin', params: { id: 'nobody' }, body: { x: 1 } },
  'DELETE /api/v1/admin/live-training/events/:id/': { access: 'admin', params: { id: 'nobody' } },
  // ---- marketing ----
  'GET /api/v1/transformation-playlists/': { access: 'public' },
  'GET /api/v2/admin/transformation-playlists/': { access: 'creator' },
  'PUT /api/v2/admin/transformation-playlists/:id/': { access: 'creator', params: playlist, owned: true, body: { topic: 'fiction' } },
  'DELETE /api/v2/admin/transformation-playlists/:id/': { access: 'creator', params: playlist, owned: true },
  'GET /api/v1/home/modules/': { access: 'public' },
  'POST /api/v1/home/dismissals/': { access: 'account', body: { module: 'x' } },
  'PUT /api/v1/newsletter/subscription/': { access: 'account', body: { subscribed: 'x' } },
  'GET /api/v1/newsletter/sample/': { access: 'public' },
  'GET /api/v1/newsletter/unsubscribe/': { access: 'public', query: { token: 'forged' } },
  'POST /api/v1/newsletter/unsubscribe/': { access: 'public', query: { token: 'forged' } },
  'POST /api/v1/analytics/events/': { access: 'public', body: { events: [{ category: 'topic', action: 'click', label: 'x' }] } },
  // ---- the catalog ----
  'GET /api/v1/book/': { access: 'public' },
  'GET /api/v1/book/:bookId/': { access: 'public', params: book },
  'GET /api/v1/book/:bookId/cover': { access: 'public', params: book },
  'GET /api/v1/book/:bookId/chapter/*': { access: 'reader', params: { bookId: 'book', '*': 'chapterPath' } },
  'GET /api/v1/topics/': { access: 'public' },
  'GET /api/v1/topics/:slug/': { access: 'public', params: { slug: 'topic' } },
  'GET /api/v1/publishers/:slug/': { access: 'public', params: { slug: 'publisher' } },
  // ---- playlists, queue, metadata, progress (and the same under /nest/api/) ----
  'GET /api/v2/collections/': { access: 'account' },
  'POST /api/v2/collections/': { access: 'account', body: { name: 'Attack Playlist', description: '' }, create: { succeed: 'one', body: { name: 'Attack Playlist {n}', description: '' } } },
  'POST /api/v2/collections/holding/': { access: 'account', body: { content: ['{chapterUrl}'] } },
  'GET /api/v2/collections/:id/': { access: 'account', params: playlist, owned: true },
  'PATCH /api/v2/collections/:id/': { access: 'account', params: playlist, owned: true, body: { name: 'Taken over' } },
  'DELETE /api/v2/collections/:id/': { access: 'account', params: playlist, owned: true },
  'POST /api/v2/collections/:id/add-content/': { access: 'account', params: playlist, owned: true, body: { content: ['{chapterUrl}'] }, create: { succeed: 'all', body: { content: ['/api/v1/book/{book}/chapter/{n}.xhtml'] } } },
  'PUT /api/v2/collections/:id/order/': { access: 'account', params: playlist, owned: true, body: { content: [] } },
  'POST /api/v2/collections/:id/remove-content/': { access: 'account', params: playlist, owned: true, body: { content: ['{chapterUrl}'] } },
  'GET /api/v1/queue-simple/': { access: 'account' },
  'POST /api/v1/queue-simple/': { access: 'account', body: ['{chapterUrl}'], create: { succeed: 'all', body: ['/api/v1/book/{book}/chapter/{n}.xhtml'] } },
  'DELETE /api/v1/queue-simple/': { access: 'account', body: ['{chapterUrl}'] },
  'POST /api/v1/metadata/': { access: 'public', body: { urls: ['{chapterUrl}'] } },
  'POST /api/v1/user_progress/': { access: 'account', body: { urls: ['{chapterUrl}'] } },
  // ---- the reader ----
  // a chapter the caller may not read is an error inside the 200 (reader.md §3; reader.test.ts)
  'POST /nest/epub/block/': { access: 'public', body: { book_id: '{book}', hrefs: ['three.xhtml'] } },
  'GET /nest/key/': { access: 'account' },
  'GET /nest/epub/toc/': { access: 'public', query: { book_id: '{book}' } },
  'POST /api/v1/usage-event/': {
    access: 'account',
    body: { events: [{ chapter: '{chapterUrl}', start_percentage: 0, end_percentage: 50, client_timestamp: 1764000000000, usage_uuid: '00000000-0000-4000-8000-0000000000e1' }] },
    // one usage_uuid is one interval however often it comes
    create: { succeed: 'all', body: { events: [{ chapter: '{chapterUrl}', start_percentage: 0, end_percentage: 50, client_timestamp: 1764000000000, usage_uuid: '00000000-0000-4000-8000-{nid}' }] } },
  },
  'GET /api/v1/book/:bookId/chapter-progress/': { access: 'account', params: book },
  'GET /api/v1/book/:bookId/position/': { access: 'account', params: book },
  'PUT /api/v1/book/:bookId/position/': { access: 'account', params: book, body: { x: 1 } },
  // ---- annotations ----
  'GET /nest/api/a/:title/:bookId/*': { access: 'annotator', params: note, owned: true, operators: true },
  'POST /nest/api/a/:title/:bookId/*': { access: 'annotator', mayDeny: 'the anonymous read what the world may, and write nothing', params: { title: 'bookTitle', bookId: 'book', '*': 'chapterPathAnnotations' }, body: { quote: 'q', text: 'attack', ranges: [] }, create: { succeed: 'all', body: { quote: 'q', text: 'attack {n}', ranges: [] } } },
  'PUT /nest/api/a/:title/:bookId/*': { access: 'annotator', params: note, owned: true, operators: true, body: { text: 'Taken over' } },
  'DELETE /nest/api/a/:title/:bookId/*': { access: 'annotator', params: note, owned: true, operators: true },
  'GET /auth/token': { access: 'account' },
  'POST /a/sanitize-fragment/': { access: 'account', body: { fragment: '<b>x</b>' } },
  'GET /api/v2/annotations/:bookId/export/': { access: 'account', params: book, query: { format: 'json' } },
  // ---- scripted frames, media ----
  // 404 to everyone for a title that runs no scripts (the table's book; the world's scripted title is the victim's
  // frame, SCRIPTED_ROUTE_TABLE); scripted-frames.test.ts holds its gate
  'GET /api/v1/book/:bookId/scripted-frame/': { access: 'account', params: book, query: { path: 'three.xhtml' } },
  // the reader's answer to a scripted title's scripts (docs/decisions.md "Scripted publications: an origin each, and
  // the reader asked first"): 404 here too; scripted-frames.test.ts holds the rest
  'GET /api/v1/book/:bookId/scripts-consent/': { access: 'account', params: book },
  'PUT /api/v1/book/:bookId/scripts-consent/': { access: 'account', params: book, body: { allow: true } },
  'DELETE /api/v1/book/:bookId/scripts-consent/': { access: 'account', params: book },
  'GET /api/v1/player/support/': { access: 'public' },
  'GET /api/v1/player/kaltura_session/': { access: 'reader', query: { reference_id: '{media}' } },
  'GET /api/v1/media/:bookId/preview': { access: 'public', params: { bookId: 'media' } },
  'GET /api/v1/media/:bookId/:href/captions.vtt': { access: 'capability', params: { bookId: 'media', href: 'mediaPart' } },
  'GET /api/v1/media/:bookId/:href': { access: 'capability', params: { bookId: 'media', href: 'mediaPart' } },
  // ---- debug or test mode only ----
  'POST /debug/': { access: 'debug', body: { message: 'x' } },
};

// The legacy prefix serves the playlists' calls as they are (routes/collections.ts).
for (const [key, spec] of Object.entries(ROUTE_TABLE)) {
  const [method, url] = key.split(' ') as [string, string];
  if (url.startsWith('/api/v2/collections/')) ROUTE_TABLE[`${method} /nest/api${url}`] = { ...spec, create: undefined };
}

/**
 * The scripted origin's listener (scripted-origin.ts; docs/decisions.md "Scripted titles on their own origin"): the
 * reading-system script, and a scripted title's chapters and files below a token the app hands out.
 * route-table.test.ts compares this with the routes that listener registers.
 */
export const SCRIPTED_ROUTE_TABLE: Record<string, RouteSpec> = {
  'GET /lectern-reading-system.js': { access: 'public', served: 'scripted' },
  'GET /b/:token/*': { access: 'frame', served: 'scripted', params: { token: 'frameToken', '*': 'scriptedChapterPath' } },
};

/**
 * The web app's pages: every address of packages/web/src/app/router.tsx (route-table.test.ts reads them from it),
 * answered by the app's not-found handler with index.html, the caller's no-JavaScript forms and first-screen data in
 * it (routes/web.ts). The areas with routes of their own (the playlists, the console) are their wildcards. Public:
 * the page itself decides what a visitor sees, from the API.
 */
export const WEB_PAGE_TABLE: Record<string, RouteSpec> = Object.fromEntries(
  Object.entries({
    '/': {},
    '/archive_list': {},
    '/home': {},
    '/library': {},
    '/topics/:slug': { slug: 'topic' },
    '/library/publisher/:slug': { slug: 'publisher' },
    '/library/book/:bookId': { bookId: 'book' },
    '/library/view/:titleSafe/:bookId/*': { titleSafe: 'bookTitle', bookId: 'book', '*': 'chapterPath' },
    '/login': {},
    '/register': {},
    '/welcome/topics': {},
    '/u': {},
    '/u/shortcuts': {},
    '/search': {},
    '/noresults': {},
    '/forgot-password': {},
    '/reset-password': {},
    '/setup': {},
    '/newsletter/unsubscribe': {},
    '/subscribe': {},
    '/teams/new': {},
    '/teams/join': {},
    '/c/*': { '*': 'playlistPage' },
    '/live-training': {},
    '/live-training/courses/:slug/:courseId': { slug: 'nobody', courseId: 'nobody' },
    '/admin/*': { '*': 'adminPage' },
    '/*': { '*': 'nobody' },
  } as Record<string, Record<string, string>>).map(([url, params]): [string, RouteSpec] => [`GET ${url}`, { access: 'public', served: 'page', params }]),
);

/** The web app's build files as the static plugin registers them (the world serves the stand-in build). */
export const WEB_FILE_TABLE: Record<string, RouteSpec> = Object.fromEntries(SERVED_BUILD_FILES.map((f): [string, RouteSpec] => [`GET /${f}`, { access: 'public', served: 'file' }]));

export const UNSAFE = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

export interface TableRoute extends RouteSpec {
  key: string;
  method: string;
  url: string;
}

/** Every route the suite attacks: the app's, the scripted origin's, the web app's pages and build files. */
export const ROUTES: TableRoute[] = Object.entries({ ...ROUTE_TABLE, ...SCRIPTED_ROUTE_TABLE, ...WEB_PAGE_TABLE, ...WEB_FILE_TABLE }).map(([key, spec]) => {
  const [method, url] = key.split(' ') as [string, string];
  return { key, method, url, ...spec };
});

/** The path parameters of a Fastify url, in order (`*` for the wildcard). */
export function paramsOf(url: string): string[] {
  return [...url.matchAll(/:(\w+)|(\*)/g)].map((m) => m[1] ?? '*');
}

/** The url with its parameters filled: `fill(name)` gives each one's text, already encoded where it must be. */
export function fillPath(url: string, fill: (name: string) => string): string {
  return url.replace(/:(\w+)|\*/g, (_m, name: string | undefined) => fill(name ?? '*'));
}
