/**
 * The one typed API client of the web app. Every call to the server goes through `request`, which
 * - sends cookies (`credentials: 'same-origin'`) and `Accept: application/json`,
 * - adds `X-CSRFToken` (the `csrftoken` cookie) to every method other than GET, HEAD, OPTIONS and TRACE,
 * - parses the answer with the core zod schema of the call, so components only ever see checked data,
 * - turns every failure (HTTP error, network error, an answer that does not match the schema) into an `ApiError`.
 *
 * Features call the named functions below; they never call fetch or build URLs themselves.
 */
import {
  accountEntryPaths,
  firstOperatorPaths,
  type FirstOperatorRequest,
  type Plan,
  type PlanInfo,
  type PromotionResponse,
  type RegistrationRequest,
  type Subscription,
  type RegistrationResponse,
  CATALOG_PAGE_SIZE,
  CLIENT_METADATA_FIELDS,
  CSRF_HEADER,
  MAX_URLS_PER_CALL,
  MESSAGES,
  paths,
  SAFE_METHODS,
  type AccountProfile,
  SHORTCUTS_SETTING_PATH,
  type ShortcutSetting,
  type CatalogSort,
  type ContentFormat,
  type BookDetail,
  type ChapterContent,
  type Collection,
  type CollectionSummary,
  type ContentMetadata,
  type LoginRequest,
  type Locator,
  type PositionResponse,
  type InBookSearchResponse,
  type SearchSelection,
  type CatalogSearchQuery,
  type CatalogSearchResponse,
  type Suggestion,
  type HomeResponse,
  type HomeModule,
  type HomeModules,
  marketingPaths,
  type NewsletterSample,
  type UnsubscribeState,
  type TransformationPlaylist,
  type Annotation,
  type AnnotationSearchResponse,
  annotationPaths,
  AUTH_TOKEN_HEADER,
  type RecommendationAction,
  searchPaths,
  type Paged,
  type QueueEntry,
  type Topic,
  type TopicCount,
  type CourseStatusesResponse,
  type CurrentEventResponse,
  liveTrainingPaths,
  teamPaths,
  type Team,
  type CreateTeamRequest,
  type InvitationInfo,
  analyticsPaths,
  type AnalyticsEventInput,
} from '@lectern/core';
import { takeBootAnswer } from './boot.ts';
import { csrfToken as readCsrfCookie } from './cookies.ts';

/** What /api/v1/metadata/ answers per item: the fields asked for, api_url always. */
/** What the subscribe and reactivate forms send beside the plan (core's subscribeRequestSchema). */
export type SubscriptionTermsInput = { country?: string; eu_agreement?: boolean };

export type PartialMetadata = Partial<ContentMetadata> & { api_url: string };

/** Field name -> reasons, as the server sends them in a 400 body. */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  /** The sentence to show the user. */
  readonly detail: string;
  /** Per-field reasons (validation errors); empty when there are none. */
  readonly errors: FieldErrors;
  readonly url: string;
  /** The HTTP status text ('' when there was no answer). */
  readonly statusText: string;

  constructor(status: number, detail: string, errors: FieldErrors = {}, url = '', statusText = '') {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.errors = errors;
    this.url = url;
    this.statusText = statusText;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/**
 * What `request` needs of a schema. The core zod schemas satisfy it; keeping it structural means the web
 * package does not import zod itself (zod is the core package's dependency).
 */
export interface Parser<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: unknown };
}

export interface RequestOptions {
  method?: string;
  /** Serialised as JSON. */
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
  /** Replaces the default `Accept: application/json` (the playlist calls ask for version v2). */
  accept?: string;
  /** Extra request headers (If-None-Match). */
  headers?: Record<string, string>;
  /** The fetch cache mode; the conditional collections GET bypasses the HTTP cache to see its own 304. */
  cache?: RequestCache;
  /** Treat 304 Not Modified as an answer (the caller holds the data) instead of an error. */
  notModifiedOk?: boolean;
  /** Let the request outlive the page (fetch keepalive): the reader's position sent as the tab closes. */
  keepalive?: boolean;
  /**
   * This request's answer, already asked for by someone else (the reader address's early block request,
   * api/earlyBlock.ts): taken as the answer instead of sending the request again, with the same error handling and
   * parsing. A rejection is the network error it would have been.
   */
  answer?: Promise<Response>;
}

export interface UploadOptions {
  query?: RequestOptions['query'];
  /** POST unless said (a title's cover is a PUT: it replaces the one there) */
  method?: 'POST' | 'PUT';
  signal?: AbortSignal;
  /** bytes sent so far and the body's size (0 when unknown) */
  onProgress?: (sent: number, total: number) => void;
  /** the whole body is sent; the server is at work */
  onSent?: () => void;
  answerOn?: readonly number[];
}

export interface ApiClientOptions {
  /** Origin (and optional path prefix) the API lives at; '' means the page's own origin. */
  baseUrl?: string;
  /** Where the CSRF token comes from; defaults to the `csrftoken` cookie. */
  csrfToken?: () => string | null;
  /** Where the playlist list and its ETag are kept between visits; defaults to localStorage. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
}

export type { TopicCount };
type Schemas = typeof import('./schemas.ts');
/**
 * Lets the browser run what waits (input, a frame) between two pieces of work, where it offers a way
 * (scheduler.yield); elsewhere carries straight on. (Also the reader's, between the steps of a chapter's first screen.)
 */
export const yieldToBrowser = (): Promise<void> =>
  (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler?.yield?.() ?? Promise.resolve();

/** Resolves once the browser is idle (requestIdleCallback, at most a second away), or at once where there is none. */
const whenIdle = (): Promise<void> =>
  new Promise((resolve) => {
    const idle = (globalThis as { requestIdleCallback?: (cb: () => void, opts: { timeout: number }) => number }).requestIdleCallback;
    if (idle) idle(() => resolve(), { timeout: 1000 });
    else resolve();
  });

let schemasLoaded: Promise<Schemas> | null = null;
/**
 * The schemas module, loaded once on the first request (see schemas.ts for why it is a separate chunk). Building
 * its schemas takes a while on a phone: the answers that waited for it are parsed in a task of their own, not in
 * one long task with it (a long task is a page that does not answer a tap).
 */
const loadSchemas = (): Promise<Schemas> =>
  (schemasLoaded ??= import('./schemas.ts').then(
    async (m) => {
      await yieldToBrowser();
      return m;
    },
    (error: unknown) => {
      schemasLoaded = null; // the next request tries again
      throw error;
    },
  ));

/** A parser, or a choice of one among the core schemas (resolved once the schemas module is loaded). */
export type ParserRef<T> = Parser<T> | ((schemas: Schemas) => Parser<T>);

export interface BookListParams {
  page?: number;
  /** where the list continues: the cursor of the previous answer's `next` link (wins over page) */
  cursor?: string | null;
  pageSize?: number;
  topic?: string;
  publisher?: string;
  /** 'title' (the default), 'recent' or 'author' */
  sort?: CatalogSort;
  /** only works available in this content format */
  format?: ContentFormat;
}

const SAFE = new Set<string>(SAFE_METHODS);
const PROFILE_PATH = '/u/information_for_javascript';

/**
 * Playlist calls (library-playlists-account.md §7): base path /nest/api, service path /api/v2, and
 * `Accept: application/json` with the version parameter v2.
 */
const COLLECTIONS_PATH = paths.collections();
const V2_ACCEPT = 'application/json; version=v2';
const collectionPath = paths.collection;
const QUEUE_PATH = paths.queue();

/** Browser storage keys of spec §3 for the cached playlist list and the ETag it came with. */
export const COLLECTIONS_STORAGE = { etag: 'collections_etag_v2', data: 'collections_collections_data' } as const;
/** Ours, beside them: the light list (names and counts, docs/decisions.md) and its ETag. */
export const COLLECTION_SUMMARIES_STORAGE = { etag: 'collections_summary_etag_v2', data: 'collections_summary_data' } as const;

function defaultStorage(): ApiClientOptions['storage'] {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled by the browser
  }
}

/**
 * Splits a url list into calls of at most `size` (core's MAX_URLS_PER_CALL, the server's limit per call). The
 * limit and the metadata field list are read from the lazily loaded schemas module: importing them from core
 * here would tie core's zod schemas module to the entry chunk.
 */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createApiClient(options: ApiClientOptions = {}) {
  const baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
  const getCsrf = options.csrfToken ?? readCsrfCookie;

  function urlOf(path: string, query?: RequestOptions['query']): string {
    let url = baseUrl + path;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
      const s = qs.toString();
      if (s) url += (url.includes('?') ? '&' : '?') + s;
    }
    return url;
  }

  /** A GET to any page or API sets the csrftoken cookie when it is missing (e.g. on the Vite dev server). */
  async function ensureCsrfToken(): Promise<string | null> {
    const existing = getCsrf();
    if (existing) return existing;
    try {
      await fetch(urlOf(PROFILE_PATH), { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    } catch {
      /* the real request below reports the network error */
    }
    return getCsrf();
  }

  interface Exchange {
    response: Response;
    json: unknown;
    text: string;
    schemas: Schemas;
    url: string;
  }

  /** One round trip: headers, CSRF, network and HTTP errors. The answer is handed back unparsed. */
  async function exchange(path: string, opts: RequestOptions = {}): Promise<Exchange> {
    const schemasLoading = loadSchemas();
    schemasLoading.catch(() => undefined); // handled below, after the fetch
    const method = (opts.method ?? 'GET').toUpperCase();
    const url = urlOf(path, opts.query);
    const headers: Record<string, string> = { Accept: opts.accept ?? 'application/json', ...opts.headers };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (!SAFE.has(method) && !opts.answer) {
      const token = await ensureCsrfToken();
      if (token) headers[CSRF_HEADER] = token;
    }

    // The screen's first answer may have come with the page (api/boot.ts): taken as the server's answer (fresher
    // than a copy kept with its ETag: a conditional list takes it as a 200), checked as every answer is.
    const fromPage = method === 'GET' && opts.body === undefined && !opts.answer ? takeBootAnswer(url.slice(baseUrl.length)) : null;
    let response: Response;
    if (fromPage) {
      response = new Response(JSON.stringify(fromPage.json), { status: 200, headers: { 'content-type': 'application/json' } });
    } else {
      try {
        response = await (opts.answer ??
          fetch(url, {
            method,
            headers,
            credentials: 'same-origin',
            body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
            signal: opts.signal,
            ...(opts.cache ? { cache: opts.cache } : {}),
            ...(opts.keepalive ? { keepalive: true } : {}),
          }));
      } catch (e) {
        if ((e as Error)?.name === 'AbortError') throw e;
        throw new ApiError(0, MESSAGES.contentRequestFailed, {}, url);
      }
    }

    const text = await response.text();
    let json: unknown = undefined;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }

    let schemas: Schemas;
    try {
      schemas = await schemasLoading;
    } catch {
      throw new ApiError(0, MESSAGES.contentRequestFailed, {}, url);
    }

    const notModified = response.status === 304 && opts.notModifiedOk;
    if (!response.ok && !notModified) {
      const body = schemas.errorBodySchema.safeParse(json);
      if (body.success) throw new ApiError(response.status, body.data.detail, body.data.errors ?? {}, url, response.statusText);
      throw new ApiError(response.status, MESSAGES.contentRequestFailed, {}, url, response.statusText);
    }
    return { response, json, text, schemas, url };
  }

  function parse<T>(ex: Exchange, parser: ParserRef<T>): T {
    const parsed = (typeof parser === 'function' ? parser(ex.schemas) : parser).safeParse(ex.json);
    if (!parsed.success) {
      if (import.meta.env?.DEV) console.error(`Unexpected answer from ${ex.url}`, parsed.error);
      throw new ApiError(ex.response.status, MESSAGES.contentRequestFailed, {}, ex.url, ex.response.statusText);
    }
    return parsed.data;
  }

  async function request<T>(path: string, parser: ParserRef<T> | null, opts: RequestOptions = {}): Promise<T> {
    const ex = await exchange(path, opts);
    if (parser === null) return undefined as T;
    return parse(ex, parser);
  }

  /**
   * A multipart upload with its progress: XMLHttpRequest, because fetch reports no upload progress. The same
   * rules as `request` (cookies, CSRF, ApiError, the answer parsed). `answerOn`: error statuses whose body is an
   * answer when it parses (the import's 400 carries the report of what was refused, file by file).
   */
  async function upload<T>(path: string, form: FormData, parser: ParserRef<T>, opts: UploadOptions = {}): Promise<T> {
    const schemasLoading = loadSchemas();
    schemasLoading.catch(() => undefined);
    const url = urlOf(path, opts.query);
    const token = await ensureCsrfToken();
    const { status, statusText, text } = await new Promise<{ status: number; statusText: string; text: string }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(opts.method ?? 'POST', url);
      xhr.withCredentials = true;
      xhr.setRequestHeader('Accept', 'application/json');
      if (token) xhr.setRequestHeader(CSRF_HEADER, token);
      xhr.upload.onprogress = (e) => opts.onProgress?.(e.loaded, e.lengthComputable ? e.total : 0);
      // every byte is sent: what remains is the server's work (parsing, indexing) until it answers
      xhr.upload.onload = () => opts.onSent?.();
      xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
      xhr.onerror = () => reject(new ApiError(0, MESSAGES.contentRequestFailed, {}, url));
      xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
      opts.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
      xhr.send(form);
    });
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const schemas = await schemasLoading.catch(() => {
      throw new ApiError(0, MESSAGES.contentRequestFailed, {}, url);
    });
    const p = typeof parser === 'function' ? parser(schemas) : parser;
    const ok = status >= 200 && status < 300;
    if (ok || opts.answerOn?.includes(status)) {
      const parsed = p.safeParse(json);
      if (parsed.success) return parsed.data;
      if (ok) throw new ApiError(status, MESSAGES.contentRequestFailed, {}, url, statusText);
    }
    const body = schemas.errorBodySchema.safeParse(json);
    if (body.success) throw new ApiError(status, body.data.detail, body.data.errors ?? {}, url, statusText);
    throw new ApiError(status, MESSAGES.contentRequestFailed, {}, url, statusText);
  }

  const storage = options.storage === undefined ? defaultStorage() : options.storage;
  const store = {
    get: (key: string) => {
      try {
        return storage?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set: (key: string, value: string) => {
      try {
        storage?.setItem(key, value);
      } catch {
        /* full or disabled: the list is simply fetched in full next time */
      }
    },
    remove: (key: string) => {
      try {
        storage?.removeItem(key);
      } catch {
        /* nothing to do */
      }
    },
  };

  /**
   * GET /collections/ with the stored ETag: a 304 answers with the stored list; a 200 replaces both. The stored
   * list is parsed with the same schema as a fresh one (it may come from an older version of the app).
   */
  function listCollections(signal?: AbortSignal): Promise<Collection[]> {
    return conditionalList(COLLECTIONS_PATH, COLLECTIONS_STORAGE, (s) => s.collectionListSchema, signal);
  }

  /** The light list (`?content=none`): names and counts, what every page needs; ETag-aware like the whole list. */
  function listCollectionSummaries(signal?: AbortSignal): Promise<CollectionSummary[]> {
    return conditionalList(`${COLLECTIONS_PATH}?content=none`, COLLECTION_SUMMARIES_STORAGE, (s) => s.collectionSummaryListSchema, signal);
  }

  async function conditionalList<T>(
    path: string,
    keys: { etag: string; data: string },
    pick: (s: Schemas) => Parser<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const schemas = await loadSchemas().catch(() => null);
    const etag = store.get(keys.etag);
    const raw = store.get(keys.data);
    let cached: T | null = null;
    if (schemas && etag && raw) {
      try {
        const parsed = pick(schemas).safeParse(JSON.parse(raw));
        if (parsed.success) cached = parsed.data;
      } catch {
        cached = null;
      }
    }
    const ex = await exchange(path, {
      signal,
      accept: V2_ACCEPT,
      headers: cached && etag ? { 'If-None-Match': etag } : {},
      cache: 'no-store',
      notModifiedOk: cached !== null,
    });
    if (ex.response.status === 304 && cached) return cached;
    const list = parse(ex, pick);
    const newTag = ex.response.headers.get('ETag');
    if (newTag) {
      store.set(keys.etag, newTag);
      store.set(keys.data, ex.text);
    } else {
      store.remove(keys.etag);
      store.remove(keys.data);
    }
    return list;
  }

  const v2 = (method: string, body?: unknown): RequestOptions => ({ method, body, accept: V2_ACCEPT });

  return {
    request,
    upload,

    /**
     * Whether data that came without a request (the page's boot data, api/boot.ts) matches its schema. Checked once
     * the schemas are loaded anyway (the first request loads them) or the page is idle: never before the first
     * paint, which is what the boot data is for.
     */
    conforms: async <T>(value: unknown, parser: ParserRef<T>): Promise<boolean> => {
      await Promise.race([schemasLoaded ?? new Promise<never>(() => {}), whenIdle()]);
      const schemas = await loadSchemas();
      return (typeof parser === 'function' ? parser(schemas) : parser).safeParse(value).success;
    },

    /** The signed-in user's profile; an ApiError 401 for anonymous visitors. */
    /** Whether single-key shortcuts are on for the signed-in reader (docs/decisions.md "Keyboard shortcuts"). */
    getShortcutSetting: (signal?: AbortSignal): Promise<ShortcutSetting> => request(SHORTCUTS_SETTING_PATH, (s) => s.shortcutSettingSchema, { signal }),

    putShortcutSetting: (setting: ShortcutSetting): Promise<ShortcutSetting> =>
      request(SHORTCUTS_SETTING_PATH, (s) => s.shortcutSettingSchema, { method: 'PUT', body: setting }),

    getProfile: (signal?: AbortSignal): Promise<AccountProfile> =>
      request(PROFILE_PATH, (s) => s.accountProfileSchema, { signal }),

    login: (credentials: LoginRequest): Promise<AccountProfile> =>
      request('/login/', (s) => s.accountProfileSchema, { method: 'POST', body: credentials }),

    logout: (): Promise<void> => request('/logout/', null, { method: 'POST' }),

    // ---- joining (paths in docs/decisions.md) ----

    /** Registers a trial account and signs it in; a 400 ApiError carries `errors` by field. */
    register: (form: RegistrationRequest): Promise<RegistrationResponse> =>
      request(accountEntryPaths.register(), (s) => s.registrationResponseSchema, { method: 'POST', body: form }),

    /** Whether an address is free to register: `{success, message}`. */
    checkEmail: (email: string, signal?: AbortSignal): Promise<{ success: boolean; message: string }> =>
      request(accountEntryPaths.emailCheck(), (s) => s.emailCheckResponseSchema, { query: { email }, signal }),

    /** The server's password rule in words: `{valid, msg}`. */
    checkPassword: (password: string, email: string, signal?: AbortSignal): Promise<{ valid: boolean; msg: string }> =>
      request(accountEntryPaths.passwordValidation(), (s) => s.passwordValidationResponseSchema, {
        method: 'POST',
        body: { password, email, field_name: 'password' },
        signal,
      }),

    // ---- staying: plans, promotion codes, the subscription, the account page (docs/decisions.md "Joining") ----

    getPlans: (signal?: AbortSignal): Promise<PlanInfo[]> =>
      request(accountEntryPaths.plans(), (s) => s.planListSchema, { signal }).then((r) => r.results),

    /** §3 "Promotion response"; the code is sent lower-cased (§5). */
    redeemPromotion: (code: string, plan: Plan, signal?: AbortSignal): Promise<PromotionResponse> =>
      request(accountEntryPaths.promotionRedeem(), (s) => s.promotionResponseSchema, { query: { code: code.trim().toLowerCase(), plan }, signal }),

    getSubscription: (signal?: AbortSignal): Promise<Subscription> =>
      request(accountEntryPaths.subscription(), (s) => s.subscriptionSchema, { signal }),

    /** `terms`: the subscriber's country and, in the EU, their agreement (§4) */
    subscribe: (plan: Plan, promotionCode?: string, terms: SubscriptionTermsInput = {}): Promise<Subscription> =>
      request(accountEntryPaths.subscription(), (s) => s.subscriptionSchema, {
        method: 'POST',
        body: { plan, ...(promotionCode ? { promotion_code: promotionCode.trim().toLowerCase() } : {}), ...terms },
      }),

    cancelSubscription: (): Promise<Subscription> =>
      request(accountEntryPaths.cancel(), (s) => s.subscriptionSchema, { method: 'POST', body: {} }),

    reactivateSubscription: (plan?: Plan, terms: SubscriptionTermsInput = {}): Promise<Subscription> =>
      request(accountEntryPaths.reactivate(), (s) => s.subscriptionSchema, { method: 'POST', body: { ...(plan ? { plan } : {}), ...terms } }),

    changePassword: (currentPassword: string, newPassword: string): Promise<{ signed_out: number }> =>
      request(accountEntryPaths.password(), (s) => s.signedOutSchema, {
        method: 'POST',
        body: { current_password: currentPassword, new_password: newPassword },
      }),

    changeEmail: (currentPassword: string, email: string): Promise<AccountProfile> =>
      request(accountEntryPaths.email(), (s) => s.accountProfileSchema, { method: 'POST', body: { current_password: currentPassword, email } }),

    signOutOtherSessions: (): Promise<{ signed_out: number }> =>
      request(accountEntryPaths.otherSessions(), (s) => s.signedOutSchema, { method: 'DELETE' }),

    /** Sends a one-time link if an account uses the address; answers the same either way. */
    requestPasswordReset: (email: string): Promise<{ detail: string }> =>
      request(accountEntryPaths.passwordReset(), (s) => s.errorBodySchema, { method: 'POST', body: { email } }),

    isResetLinkLive: (token: string, signal?: AbortSignal): Promise<boolean> =>
      request(accountEntryPaths.passwordResetConfirm(), (s) => s.resetLinkStateSchema, { query: { token }, signal }).then((r) => r.live),

    resetPassword: (token: string, newPassword: string): Promise<{ detail: string }> =>
      request(accountEntryPaths.passwordResetConfirm(), (s) => s.errorBodySchema, { method: 'POST', body: { token, new_password: newPassword } }),

    /** Whether the first operator's set-up link (printed at the start while no admin exists) is still good. */
    isFirstOperatorLinkLive: (token: string, signal?: AbortSignal): Promise<boolean> =>
      request(firstOperatorPaths.api(), (s) => s.resetLinkStateSchema, { query: { token }, signal }).then((r) => r.live),

    /** Creates the first admin through the set-up link; the browser is signed in as them. */
    createFirstOperator: (input: FirstOperatorRequest): Promise<AccountProfile> =>
      request(firstOperatorPaths.api(), (s) => s.accountProfileSchema, { method: 'POST', body: input }),

    // ---- teams (docs/decisions.md "Teams"; core's teamPaths) ----

    /** The caller's team; null when they are in none. */
    getMyTeam: (signal?: AbortSignal): Promise<Team | null> =>
      request(teamPaths.mine(), (s) => s.myTeamSchema, { signal }).then((r) => r.team),

    /** Buys `seats` (the owner's included) on `plan` and invites `emails`. */
    createTeam: (input: CreateTeamRequest): Promise<Team> =>
      request(teamPaths.create(), (s) => s.teamSchema, { method: 'POST', body: input }),

    setTeamSeats: (teamId: number, seats: number): Promise<Team> =>
      request(teamPaths.seats(teamId), (s) => s.teamSchema, { method: 'PUT', body: { seats } }),

    inviteToTeam: (teamId: number, emails: readonly string[]): Promise<Team> =>
      request(teamPaths.invitations(teamId), (s) => s.teamSchema, { method: 'POST', body: { emails } }),

    revokeTeamInvitation: (teamId: number, invitationId: number): Promise<Team> =>
      request(teamPaths.invitation(teamId, invitationId), (s) => s.teamSchema, { method: 'DELETE' }),

    /** Removes a member (the owner), or leaves (the member's own uuid: answers null). */
    removeTeamMember: (teamId: number, userUuid: string): Promise<Team | null> =>
      request(teamPaths.member(teamId, userUuid), (s) => s.myTeamSchema, { method: 'DELETE' }).then((r) => r.team),

    cancelTeam: (teamId: number): Promise<Team> => request(teamPaths.cancel(teamId), (s) => s.teamSchema, { method: 'POST', body: {} }),

    reactivateTeam: (teamId: number): Promise<Team> => request(teamPaths.reactivate(teamId), (s) => s.teamSchema, { method: 'POST', body: {} }),

    /** What an invitation link offers. */
    getTeamInvitation: (token: string, signal?: AbortSignal): Promise<InvitationInfo> =>
      request(teamPaths.invitationByToken(), (s) => s.invitationInfoSchema, { query: { token }, signal }),

    /** Accepts it: signed in as is, or a visitor signing up with `password`. */
    acceptTeamInvitation: (token: string, password?: string): Promise<Team | null> =>
      request(teamPaths.invitationByToken(), (s) => s.myTeamSchema, { method: 'POST', body: { token, ...(password ? { password } : {}) } }).then((r) => r.team),

    getChosenTopics: (signal?: AbortSignal): Promise<Topic[]> =>
      request(accountEntryPaths.topics(), (s) => s.chosenTopicListSchema, { signal }).then((r) => r.topics),

    chooseTopics: (slugs: readonly string[]): Promise<Topic[]> =>
      request(accountEntryPaths.topics(), (s) => s.chosenTopicListSchema, { method: 'PUT', body: { topics: slugs } }).then((r) => r.topics),

    listBooks: (params: BookListParams = {}, signal?: AbortSignal): Promise<Paged<ContentMetadata>> =>
      request(paths.bookList(), (s) => s.bookPageSchema, {
        signal,
        query: {
          page: params.page ?? 1,
          cursor: params.cursor ?? undefined,
          page_size: params.pageSize ?? CATALOG_PAGE_SIZE.default,
          topic: params.topic,
          publisher: params.publisher,
          sort: params.sort && params.sort !== 'title' ? params.sort : undefined,
          format: params.format,
        },
      }),

    getBook: (bookId: string, signal?: AbortSignal): Promise<BookDetail> =>
      request(paths.bookApi(bookId), (s) => s.bookDetailSchema, { signal }),

    getChapter: (bookId: string, fullPath: string, signal?: AbortSignal): Promise<ChapterContent> =>
      request(paths.chapterApi(bookId, fullPath), (s) => s.chapterContentSchema, { signal }),

    /** A publisher's display name and slug (the catalog filtered by publisher shows it as its heading). */
    getPublisher: (slug: string, signal?: AbortSignal): Promise<Topic> =>
      request(`/api/v1/publishers/${encodeURIComponent(slug)}/`, (s) => s.topicSchema, { signal }),

    listTopics: (signal?: AbortSignal): Promise<TopicCount[]> =>
      request('/api/v1/topics/', (s) => s.topicListSchema, { signal }).then((r) => r.results),

    // ---- playlists (collections), queue, metadata, progress: library-playlists-account.md §7 ----

    /** The user's playlists; ETag-aware (see above). A 401 for anonymous visitors. */
    listCollections,

    listCollectionSummaries,

    /** Ours: for each address, the ids of the reader's playlists holding it (what the title cards on screen show). */
    collectionsHolding: async (urls: readonly string[], signal?: AbortSignal): Promise<Record<string, string[]>> => {
      const parts = await Promise.all(
        chunks(urls, MAX_URLS_PER_CALL).map((part) =>
          request(`${COLLECTIONS_PATH}holding/`, (s) => s.collectionHoldingSchema, { ...v2('POST', { content: part }), signal }),
        ),
      );
      return Object.assign({}, ...parts.map((p) => p.results)) as Record<string, string[]>;
    },

    /** Forgets the stored lists and their ETags (at sign-out: the next user must not be answered 304 with them). */
    clearCollectionsCache: () => {
      for (const keys of [COLLECTIONS_STORAGE, COLLECTION_SUMMARIES_STORAGE]) {
        store.remove(keys.etag);
        store.remove(keys.data);
      }
    },

    /** One playlist with its items (§7's GET /collections/{id}/): the playlist a screen opens. */
    getCollection: (id: string, signal?: AbortSignal): Promise<Collection> => request(collectionPath(id), (s) => s.collectionSchema, { ...v2('GET'), signal }),

    createCollection: (input: { name: string; description: string }): Promise<Collection> =>
      request(COLLECTIONS_PATH, (s) => s.collectionSchema, v2('POST', { name: input.name, description: input.description })),

    updateCollection: (input: { id: string; name: string; description: string }): Promise<Collection> =>
      request(collectionPath(input.id), (s) => s.collectionSchema, v2('PATCH', { description: input.description, id: input.id, name: input.name })),

    deleteCollection: (id: string): Promise<void> => request(collectionPath(id), null, v2('DELETE')),

    addContent: (id: string, content: readonly string[]): Promise<Collection> =>
      request(`${collectionPath(id)}add-content/`, (s) => s.collectionSchema, v2('POST', { content })),

    removeContent: (id: string, content: readonly string[]): Promise<Collection> =>
      request(`${collectionPath(id)}remove-content/`, (s) => s.collectionSchema, v2('POST', { content })),

    /** Ours (docs/decisions.md): the whole list of the playlist's api_urls in the wanted order. */
    reorderCollection: (id: string, content: readonly string[]): Promise<Collection> =>
      request(`${collectionPath(id)}order/`, (s) => s.collectionSchema, v2('PUT', { content })),

    getQueue: (signal?: AbortSignal): Promise<QueueEntry[]> =>
      request(QUEUE_PATH, (s) => s.queueListSchema, { signal }).then((r) => r.results),

    /** Adds to the queue (the default playlist); the body is a bare JSON array of api_urls. */
    addToQueue: async (urls: readonly string[]): Promise<void> => {
      for (const part of chunks(urls, MAX_URLS_PER_CALL)) await request(QUEUE_PATH, null, { method: 'POST', body: part });
    },

    removeFromQueue: async (urls: readonly string[]): Promise<void> => {
      for (const part of chunks(urls, MAX_URLS_PER_CALL)) await request(QUEUE_PATH, null, { method: 'DELETE', body: part });
    },

    /** Partial content metadata of the given api_urls, asked in calls of at most 100 urls. */
    getMetadata: async (urls: readonly string[], signal?: AbortSignal): Promise<PartialMetadata[]> => {
      const parts = await Promise.all(
        chunks(urls, MAX_URLS_PER_CALL).map((part) =>
          request('/api/v1/metadata/', (s) => s.metadataListSchema, {
            method: 'POST',
            body: { urls: part },
            query: { fields: CLIENT_METADATA_FIELDS },
            signal,
          }),
        ),
      );
      return parts.flat();
    },

    /** Reading progress (0-100) of the given api_urls. */
    getProgress: async (urls: readonly string[], signal?: AbortSignal): Promise<{ api_url: string; progress: number }[]> => {
      const parts = await Promise.all(
        chunks(urls, MAX_URLS_PER_CALL).map((part) =>
          request('/api/v1/user_progress/', (s) => s.progressListSchema, {
            method: 'POST',
            body: { urls: part },
            query: { fields: 'api_url,progress' },
            signal,
          }),
        ),
      );
      return parts.flat();
    },

    // ---- reading positions that follow the account (docs/decisions.md "Positions") ----

    /** Where the signed-in reader left this book: `{position: {locator, updated_at} | null}`. */
    getPosition: (bookId: string, signal?: AbortSignal): Promise<PositionResponse> =>
      request(`${paths.bookApi(bookId)}position/`, (s) => s.positionResponseSchema, { signal }),

    /** Stores where the reader is; `keepalive` for the last write as the page goes away. */
    putPosition: (bookId: string, locator: Locator, opts: { keepalive?: boolean } = {}): Promise<PositionResponse> =>
      request(`${paths.bookApi(bookId)}position/`, (s) => s.positionResponseSchema, { method: 'PUT', body: { locator }, keepalive: opts.keepalive }),

    // ---- finding (docs/decisions.md "Finding"; core/search.ts) ----

    /** reader.md §7 in-book search: a page of 5 passages of one book. */
    /** The catalog search with facets and passage hits (core's search.ts). */
    searchCatalog: (params: Partial<CatalogSearchQuery>, signal?: AbortSignal): Promise<CatalogSearchResponse> =>
      request(searchPaths.catalog(), (s) => s.catalogSearchResponseSchema, { query: params, signal }),

    /** The header's suggestions for what is being typed. */
    suggest: (q: string, signal?: AbortSignal): Promise<Suggestion[]> =>
      request(searchPaths.suggest(), (s) => s.suggestResponseSchema, { query: { q }, signal }).then((r) => r.suggestions),

    searchInBook: (params: { query: string; identifier: string; page: number }, signal?: AbortSignal): Promise<InBookSearchResponse> =>
      request(searchPaths.inBook(), (s) => s.inBookSearchResponseSchema, { query: params, signal }),

    /** reader.md §3 search-selection tracking (the caller bounds it with a timeout and only logs a failure). */
    searchSelection: (selection: SearchSelection, signal?: AbortSignal): Promise<void> =>
      request(searchPaths.selection(), null, { method: 'POST', body: selection, signal }),

    /** The home dashboard's sections for whoever asks (the recently viewed cookie travels with it). */
    home: (signal?: AbortSignal): Promise<HomeResponse> => request(searchPaths.home(), (s) => s.homeResponseSchema, { signal }),

    // ---- the marketing modules (docs/decisions.md "The marketing modules"; core/marketing.ts) ----

    /** The home blocks' state for this reader: the newsletter (null for visitors) and the blocks dismissed. */
    homeModules: (signal?: AbortSignal): Promise<HomeModules> => request(marketingPaths.homeModules(), (s) => s.homeModulesSchema, { signal }),
    dismissHomeModule: (module: HomeModule): Promise<void> => request(marketingPaths.homeDismissals(), null, { method: 'POST', body: { module } }),
    setNewsletter: (subscribed: boolean): Promise<{ subscribed: boolean }> =>
      request(marketingPaths.newsletterSubscription(), (s) => s.newsletterSubscriptionSchema, { method: 'PUT', body: { subscribed } }),
    newsletterSample: (signal?: AbortSignal): Promise<NewsletterSample> => request(marketingPaths.newsletterSample(), (s) => s.newsletterSampleSchema, { signal }),
    /** What an email's unsubscribe link stands for, and the one click that uses it (no sign-in). */
    unsubscribeState: (token: string, signal?: AbortSignal): Promise<UnsubscribeState> =>
      request(marketingPaths.newsletterUnsubscribe(), (s) => s.unsubscribeStateSchema, { query: { token }, signal }),
    /** The editors' transformation playlists: a topic's, or the newest few for the home. */
    transformationPlaylists: (topic?: string, signal?: AbortSignal): Promise<TransformationPlaylist[]> =>
      request(marketingPaths.transformationPlaylists(), (s) => s.transformationPlaylistListSchema, { query: { topic }, signal }).then((r) => r.results),
    unsubscribe: (token: string): Promise<UnsubscribeState> =>
      request(marketingPaths.newsletterUnsubscribe(), (s) => s.unsubscribeStateSchema, { method: 'POST', body: { token } }),

    // ---- live training (library-playlists-account.md §4, §7; core/live-training.ts) ----

    /** §7 GET /api/v1/live-training/current-event/: the banner's course and event, or `{}` for no banner. */
    currentLiveEvent: (signal?: AbortSignal): Promise<CurrentEventResponse> =>
      request(liveTrainingPaths.currentEvent(), (s) => s.currentEventResponseSchema, { signal }),

    /** §7 course statuses: every course (one topic's, or one course) with its sessions not over yet. */
    liveCourseStatuses: (filter: { topic?: string; course_id?: string } = {}, signal?: AbortSignal): Promise<CourseStatusesResponse> =>
      request(liveTrainingPaths.courseStatuses(), (s) => s.courseStatusesResponseSchema, { query: filter, signal }),

    // ---- annotations (docs/decisions.md "Annotations in the reader"; core/annotations.ts): the store is authenticated
    // by its token header alone ----

    /** reader.md §7 GET /auth/token: the token text for the store calls. */
    annotationToken: async (signal?: AbortSignal): Promise<string> => (await exchange(annotationPaths.token(), { accept: 'text/plain', signal })).text,

    /** GET {prefix}/search: a chapter's (or, with the book's prefix, a whole book's) annotations the caller may read. */
    searchAnnotations: (prefix: string, token: string, query: { user?: string; limit?: number; offset?: number } = {}, signal?: AbortSignal): Promise<AnnotationSearchResponse> =>
      request(annotationPaths.search(prefix), (s) => s.annotationSearchResponseSchema, { query, headers: { [AUTH_TOKEN_HEADER]: token }, signal }),

    createAnnotation: (prefix: string, token: string, body: AnnotationDraft): Promise<Annotation> =>
      request(annotationPaths.annotations(prefix), (s) => s.annotationSchema, { method: 'POST', body, headers: { [AUTH_TOKEN_HEADER]: token } }),

    updateAnnotation: (prefix: string, token: string, id: string, body: AnnotationDraft): Promise<Annotation> =>
      request(annotationPaths.annotation(prefix, id), (s) => s.annotationSchema, { method: 'PUT', body, headers: { [AUTH_TOKEN_HEADER]: token } }),

    deleteAnnotation: (prefix: string, token: string, id: string): Promise<void> =>
      request(annotationPaths.annotation(prefix, id), null, { method: 'DELETE', headers: { [AUTH_TOKEN_HEADER]: token } }),

    /** First-party analytics (shared/analytics.ts): a batch of events; keepalive when the page is going away. */
    sendAnalytics: (events: readonly AnalyticsEventInput[], keepalive = false): Promise<void> =>
      request(analyticsPaths.events(), null, { method: 'POST', body: { events }, keepalive }),

    /** library-playlists-account.md §7 POST /r/api/: what a reader did with a recommendation. */
    recommendationAction: (action: Omit<RecommendationAction, 'csrfmiddlewaretoken'>): Promise<void> =>
      request(searchPaths.recommendationAction(), null, { method: 'POST', body: action }),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** What the reader sends to create or change an annotation (core's annotationInputSchema, tags as a list). */
export interface AnnotationDraft {
  quote?: string;
  ranges?: Annotation['ranges'];
  selectors?: Annotation['selectors'];
  text?: string | null;
  tags?: string[];
  uri?: string;
  permissions?: Annotation['permissions'];
  is_public?: boolean;
  annotation_type?: Annotation['annotation_type'];
}

/** A page of a paged list: its number and, for the catalog, its cursor (useInfiniteQuery's page parameter). */
export type PageParam = { page: number; cursor: string | null };

/** The first page: typed, so useInfiniteQuery takes the cursors nextPageOf gives later (not `cursor: null` only). */
export const FIRST_PAGE: PageParam = { page: 1, cursor: null };

/** Where a paged answer's `next` link continues: its page number and, for the catalog, its cursor; null on the last page. */
export function nextPageOf(page: Pick<Paged<unknown>, 'next'>): PageParam | null {
  if (!page.next) return null;
  const params = new URL(page.next, 'http://lectern.invalid').searchParams;
  const n = Number(params.get('page'));
  const cursor = params.get('cursor');
  if (!(Number.isInteger(n) && n > 0) && !cursor) return null;
  return { page: Number.isInteger(n) && n > 0 ? n : 1, cursor };
}

/** The client the app uses: same origin. */
export const api = createApiClient();
