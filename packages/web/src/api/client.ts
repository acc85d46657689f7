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
  CATALOG_PAGE_SIZE,
  CSRF_HEADER,
  MESSAGES,
  paths,
  SAFE_METHODS,
  type AccountProfile,
  type BookDetail,
  type ChapterContent,
  type ContentMetadata,
  type LoginRequest,
  type Paged,
  type Topic,
  type TopicCount,
} from '@lectern/core';
import { csrfToken as readCsrfCookie } from './cookies.ts';

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

  constructor(status: number, detail: string, errors: FieldErrors = {}, url = '') {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.errors = errors;
    this.url = url;
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
}

export interface ApiClientOptions {
  /** Origin (and optional path prefix) the API lives at; '' means the page's own origin. */
  baseUrl?: string;
  /** Where the CSRF token comes from; defaults to the `csrftoken` cookie. */
  csrfToken?: () => string | null;
}

export type { TopicCount };
type Schemas = typeof import('./schemas.ts');
/** The schemas module, loaded once on the first request (see schemas.ts for why it is a separate chunk). */
const loadSchemas = (): Promise<Schemas> => import('./schemas.ts');

/** A parser, or a choice of one among the core schemas (resolved once the schemas module is loaded). */
export type ParserRef<T> = Parser<T> | ((schemas: Schemas) => Parser<T>);

export interface BookListParams {
  page?: number;
  pageSize?: number;
  topic?: string;
  publisher?: string;
}

const SAFE = new Set<string>(SAFE_METHODS);
const PROFILE_PATH = '/u/information_for_javascript';

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

  async function request<T>(path: string, parser: ParserRef<T> | null, opts: RequestOptions = {}): Promise<T> {
    const schemasLoading = loadSchemas();
    schemasLoading.catch(() => undefined); // handled below, after the fetch
    const method = (opts.method ?? 'GET').toUpperCase();
    const url = urlOf(path, opts.query);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (!SAFE.has(method)) {
      const token = await ensureCsrfToken();
      if (token) headers[CSRF_HEADER] = token;
    }

    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        credentials: 'same-origin',
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: opts.signal,
      });
    } catch (e) {
      if ((e as Error)?.name === 'AbortError') throw e;
      throw new ApiError(0, MESSAGES.contentRequestFailed, {}, url);
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

    if (!response.ok) {
      const body = schemas.errorBodySchema.safeParse(json);
      if (body.success) throw new ApiError(response.status, body.data.detail, body.data.errors ?? {}, url);
      throw new ApiError(response.status, MESSAGES.contentRequestFailed, {}, url);
    }
    if (parser === null) return undefined as T;
    const parsed = (typeof parser === 'function' ? parser(schemas) : parser).safeParse(json);
    if (!parsed.success) {
      if (import.meta.env?.DEV) console.error(`Unexpected answer from ${url}`, parsed.error);
      throw new ApiError(response.status, MESSAGES.contentRequestFailed, {}, url);
    }
    return parsed.data;
  }

  return {
    request,

    /** The signed-in user's profile; an ApiError 401 for anonymous visitors. */
    getProfile: (signal?: AbortSignal): Promise<AccountProfile> =>
      request(PROFILE_PATH, (s) => s.accountProfileSchema, { signal }),

    login: (credentials: LoginRequest): Promise<AccountProfile> =>
      request('/login/', (s) => s.accountProfileSchema, { method: 'POST', body: credentials }),

    logout: (): Promise<void> => request('/logout/', null, { method: 'POST' }),

    listBooks: (params: BookListParams = {}, signal?: AbortSignal): Promise<Paged<ContentMetadata>> =>
      request('/api/v1/book/', (s) => s.bookPageSchema, {
        signal,
        query: {
          page: params.page ?? 1,
          page_size: params.pageSize ?? CATALOG_PAGE_SIZE.default,
          topic: params.topic,
          publisher: params.publisher,
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
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The page number a paged answer's `next` link points at, or null on the last page. */
export function nextPageOf(page: Pick<Paged<unknown>, 'next'>): number | null {
  if (!page.next) return null;
  const n = Number(new URL(page.next, 'http://lectern.invalid').searchParams.get('page'));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The client the app uses: same origin. */
export const api = createApiClient();
