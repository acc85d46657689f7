/**
 * Configuration from the environment, validated once at start. Every bad value is reported with the variable's
 * name and what was expected, and the process refuses to start rather than run half-configured.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { HIGHLIGHT_PRIVACY_SETTINGS, type HighlightPrivacySetting } from '@lectern/core';
import { z } from 'zod';
import { NEWSLETTER_DEFAULT_DAYS } from '@lectern/core';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from './ingest/worker-protocol.ts';
import type { S3Settings } from './storage/s3-content-store.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /**
   * CONTENT_STORE: where content files are kept (docs/decisions.md "The content store"): null for DATA_DIR/content, or
   * s3://bucket/prefix for an S3-compatible bucket (endpoint and credentials from the usual AWS_* variables)
   */
  contentStore: string | null;
  /** the S3 client's settings when contentStore is s3:// (storage/s3-content-store.ts) */
  s3: Omit<S3Settings, 'url'>;
  /** postgres://... switches from the embedded SQLite file to PostgreSQL */
  databaseUrl: string | null;
  /** how long to wait for PostgreSQL to answer a new connection before saying it cannot be reached */
  databaseConnectTimeoutMs: number;
  /** where readers reach this server (links in emails are built from it, never from a request's Host) */
  publicUrl: string;
  /** smtp(s)://user:pass@host:port to send email through; null: emails are written to the log */
  smtpUrl: string | null;
  /** the From of the emails */
  mailFrom: string;
  /** SUPPORT_EMAIL: the address the video-failure page points readers to (reader.md §2); null: no address shown */
  supportEmail: string | null;
  /** HIGHLIGHT_PRIVACY: what the page declares for new highlights (reader.md §4): private, public or private-only */
  highlightPrivacy: HighlightPrivacySetting;
  /** how long a free trial lasts (days) */
  trialDays: number;
  /** how long analytics events are kept (days) before the hourly purge deletes them */
  analyticsRetentionDays: number;
  /** NEWSLETTER_DAYS: how often the newsletter of new titles goes out (days; services/marketing.ts) */
  newsletterDays: number;
  /** BUY_LINK_TEMPLATE: a title's buy link with {isbn}, {title}, {author}, {book_id}; null: no buy links */
  buyLinkTemplate: string | null;
  /** HMAC secret for sessions and CSRF tokens; generated into DATA_DIR when not given */
  secret: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Debug or test mode (library-playlists-account.md §7 `POST /debug/` exists only then): NODE_ENV=test, or
   * LOG_LEVEL debug or trace. Any other setting, production's among them, leaves the call out (404).
   */
  debugMode: boolean;
  /**
   * The reverse proxies whose X-Forwarded-* headers are believed (addresses, CIDR ranges, or proxy-addr's names
   * loopback / linklocal / uniquelocal), so that Secure cookies and client addresses are right; false: none.
   */
  trustProxy: false | string[];
  /** built web app served at / (null: API only) */
  webDist: string | null;
  /** sign-in attempts allowed per client address and account per minute */
  loginRateLimit: number;
  /** where fetched sample books are kept (default DATA_DIR/sample-cache) */
  sampleCacheDir: string;
  /** bounds on every import: file and upload size, bytes written, worker memory, time */
  imports: ImportLimits;
  /**
   * The origin where titles allowed to run scripts are read (their frames), e.g. http://books.localhost:8081; its own
   * host name, so that no cookie of the app reaches it. With a wildcard first label (http://*.books.localhost:8081)
   * every title is read on a host of its own (docs/decisions.md "Scripted publications"). null: no such origin, and no
   * book script ever runs.
   */
  scriptedOrigin: string | null;
  /** the port the scripted origin listens on (default: its address's port) */
  scriptedPort: number | null;
  /**
   * Heavy requests (searches) and listings (catalog pages, the home, suggestions) that run at once, and how many of
   * each may wait for their turn before more are answered 503 (util/gate.ts); null: the default (build-services.ts
   * HEAVY_CONCURRENCY and LISTING_CONCURRENCY for the engine). maxWaitMs: the longest one waits, then 503 too
   * (unset: the gate's default, 30 s).
   */
  heavyRequests: { concurrency: number | null; listingConcurrency: number | null; maxWaiting: number; maxWaitMs?: number };
  /**
   * SQLite: how many threads run the searches' reads (db/sqlite-readers.ts); 0: none, they run on the event loop.
   * null: the default, as many as searches run at once (build-services.ts), at most 4.
   */
  searchThreads?: number | null;
}

/** A positive whole number of some unit (MB, seconds) from the environment, or the default. */
const positive = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a positive whole number, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });
const MB = 1024 * 1024;

const envSchema = z.object({
  PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 8080;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `PORT must be a whole number from 0 to 65535, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
  HOST: z.string().optional(),
  DATA_DIR: z.string().optional(),
  CONTENT_STORE: z
    .string()
    .optional()
    .refine((v) => !v || v === 'local' || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v), {
      message: 'CONTENT_STORE must be s3://bucket or s3://bucket/prefix (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens), or local (leave it unset for DATA_DIR/content)',
    }),
  AWS_ENDPOINT_URL: z.string().url({ message: 'AWS_ENDPOINT_URL must be an address such as http://127.0.0.1:9000' }).optional().or(z.literal('')),
  AWS_ENDPOINT_URL_S3: z.string().url({ message: 'AWS_ENDPOINT_URL_S3 must be an address such as http://127.0.0.1:9000' }).optional().or(z.literal('')),
  S3_ENDPOINT: z.string().url({ message: 'S3_ENDPOINT must be an address such as http://127.0.0.1:9000' }).optional().or(z.literal('')),
  AWS_REGION: z.string().optional(),
  AWS_DEFAULT_REGION: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['0', '1', 'true', 'false', ''], { message: 'S3_FORCE_PATH_STYLE must be 1 or 0' }).optional(),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => !v || /^postgres(ql)?:\/\//.test(v), {
      message: 'DATABASE_URL must start with postgres:// or postgresql:// (leave it unset for the embedded SQLite)',
    }),
  LECTERN_SECRET: z
    .string()
    .optional()
    .refine((v) => !v || v.length >= 32, { message: 'LECTERN_SECRET must be at least 32 characters' }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional(),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseTrustProxy(v);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    }),
  WEB_DIST: z.string().optional(),
  NODE_ENV: z.string().optional(),
  SAMPLE_CACHE_DIR: z.string().optional(),
  TRIAL_DAYS: positive('TRIAL_DAYS', 10),
  ANALYTICS_RETENTION_DAYS: positive('ANALYTICS_RETENTION_DAYS', 180),
  NEWSLETTER_DAYS: positive('NEWSLETTER_DAYS', NEWSLETTER_DEFAULT_DAYS),
  BUY_LINK_TEMPLATE: z
    .string()
    .optional()
    .refine((v) => !v || /^https?:\/\/[^\s]+$/.test(v.replace(/\{(isbn|title|author|book_id)\}/g, 'x')), {
      message: 'BUY_LINK_TEMPLATE must be an http(s) address, e.g. https://bookshop.example/isbn/{isbn} ({isbn}, {title}, {author} and {book_id} are filled in)',
    }),
  PUBLIC_URL: z.url({ protocol: /^https?$/, message: 'PUBLIC_URL must be an http(s) address such as https://library.example.com' }).optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'SMTP_URL must start with smtp:// or smtps://').optional(),
  MAIL_FROM: z.string().min(3).max(200).optional(),
  SUPPORT_EMAIL: z.union([z.literal(''), z.email({ message: 'SUPPORT_EMAIL must be an email address such as support@library.example.com' })]).optional(),
  HIGHLIGHT_PRIVACY: z
    .union([z.literal(''), z.enum(HIGHLIGHT_PRIVACY_SETTINGS, { message: `HIGHLIGHT_PRIVACY must be one of ${HIGHLIGHT_PRIVACY_SETTINGS.join(', ')}` })])
    .optional(),
  DATABASE_CONNECT_TIMEOUT_SECONDS: positive('DATABASE_CONNECT_TIMEOUT_SECONDS', 10),
  IMPORT_MAX_FILE_MB: positive('IMPORT_MAX_FILE_MB', DEFAULT_IMPORT_LIMITS.maxFileBytes / MB),
  IMPORT_MAX_UPLOAD_MB: positive('IMPORT_MAX_UPLOAD_MB', DEFAULT_IMPORT_LIMITS.maxUploadBytes / MB),
  IMPORT_MAX_WRITTEN_MB: positive('IMPORT_MAX_WRITTEN_MB', DEFAULT_IMPORT_LIMITS.maxWrittenBytes / MB),
  IMPORT_MAX_MEMORY_MB: positive('IMPORT_MAX_MEMORY_MB', DEFAULT_IMPORT_LIMITS.maxMemoryBytes / MB),
  IMPORT_TIMEOUT_SECONDS: positive('IMPORT_TIMEOUT_SECONDS', DEFAULT_IMPORT_LIMITS.timeoutMs / 1000),
  HEAVY_REQUESTS: positive('HEAVY_REQUESTS', 0),
  HEAVY_REQUESTS_QUEUE: positive('HEAVY_REQUESTS_QUEUE', 1000),
  HEAVY_REQUESTS_WAIT_SECONDS: positive('HEAVY_REQUESTS_WAIT_SECONDS', 30),
  LISTING_REQUESTS: positive('LISTING_REQUESTS', 0),
  SEARCH_THREADS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return null;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 64) {
        ctx.addIssue({ code: 'custom', message: `SEARCH_THREADS must be a whole number from 0 to 64, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
  SCRIPTED_ORIGIN: z
    .url({ protocol: /^https?$/, message: 'SCRIPTED_ORIGIN must be an http(s) origin such as http://books.localhost:8081' })
    .refine((v) => new URL(v).pathname === '/' && !new URL(v).search && !new URL(v).hash, {
      message: 'SCRIPTED_ORIGIN is an origin only (scheme, host, port), without a path',
    })
    // A wildcard gives every title a host of its own (docs/decisions.md "Scripted publications"): `*` only as the whole first label, above a name.
    .refine((v) => !new URL(v).hostname.includes('*') || /^\*\.[^*]+$/.test(new URL(v).hostname), {
      message: 'SCRIPTED_ORIGIN may have a wildcard only as its whole first label, such as http://*.books.localhost:8081',
    })
    .optional(),
  SCRIPTED_PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return null;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `SCRIPTED_PORT must be a whole number from 0 to 65535, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
  LOGIN_RATE_LIMIT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 10;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) {
        ctx.addIssue({ code: 'custom', message: `LOGIN_RATE_LIMIT must be a positive whole number, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
});

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset, empty or false trusts no proxy; `true` trusts a proxy on this machine only (loopback: it no
 * longer means "believe X-Forwarded-For from anyone", which let every client pick its own address); otherwise a
 * comma-separated list of the proxies' addresses and CIDR ranges (e.g. `127.0.0.1,10.0.0.0/8`). Returns the list,
 * false, or a message saying what is wrong.
 */
export function parseTrustProxy(value: string | undefined): false | string[] | string {
  const v = (value ?? '').trim();
  if (v === '' || ['0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return ['loopback'];
  const entries = v.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry)) continue;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (!family || !prefixOk || rest.length) {
      return `TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses or CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8), got "${entry}"`;
    }
  }
  return entries;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const defaultWebDist = path.resolve(import.meta.dirname, '../../web/dist');

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message));
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR || 'data');
  const publicUrl = e.PUBLIC_URL ?? `http://${e.HOST || '127.0.0.1'}:${e.PORT}`;
  const scripted = e.SCRIPTED_ORIGIN ? new URL(e.SCRIPTED_ORIGIN) : null;
  // Cookies are kept by host name, whatever the port: on the app's host, a book's scripts would see its cookies.
  if (scripted && scripted.hostname === new URL(publicUrl).hostname) {
    throw new ConfigError([
      `SCRIPTED_ORIGIN must have a host name of its own, not the app's (${scripted.hostname}): browsers share cookies between ports of one host. Use another name for this machine, e.g. http://books.localhost:${scripted.port || (scripted.protocol === 'https:' ? 443 : 80)}`,
    ]);
  }
  return {
    port: e.PORT,
    host: e.HOST || '127.0.0.1',
    dataDir,
    contentStore: e.CONTENT_STORE && e.CONTENT_STORE !== 'local' ? e.CONTENT_STORE : null,
    s3: {
      endpoint: e.AWS_ENDPOINT_URL_S3 || e.AWS_ENDPOINT_URL || e.S3_ENDPOINT || null,
      region: e.AWS_REGION || e.AWS_DEFAULT_REGION || 'us-east-1',
      // a store of one's own (an endpoint given) is reached by path unless told otherwise; AWS by host name
      forcePathStyle: e.S3_FORCE_PATH_STYLE ? e.S3_FORCE_PATH_STYLE === '1' || e.S3_FORCE_PATH_STYLE === 'true' : Boolean(e.AWS_ENDPOINT_URL_S3 || e.AWS_ENDPOINT_URL || e.S3_ENDPOINT),
      // the SDK's own chain reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and profiles, roles) when left null
      credentials: null,
    },
    databaseUrl: e.DATABASE_URL || null,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
    trialDays: e.TRIAL_DAYS,
    analyticsRetentionDays: e.ANALYTICS_RETENTION_DAYS,
    newsletterDays: e.NEWSLETTER_DAYS,
    buyLinkTemplate: e.BUY_LINK_TEMPLATE || null,
    publicUrl,
    smtpUrl: e.SMTP_URL || null,
    mailFrom: e.MAIL_FROM ?? 'Lectern <no-reply@lectern.local>',
    supportEmail: e.SUPPORT_EMAIL || null,
    highlightPrivacy: e.HIGHLIGHT_PRIVACY || 'private',
    secret: e.LECTERN_SECRET || null,
    logLevel: e.LOG_LEVEL ?? 'info',
    debugMode: e.NODE_ENV === 'test' || e.LOG_LEVEL === 'debug' || e.LOG_LEVEL === 'trace',
    trustProxy: e.TRUST_PROXY ?? false,
    webDist: e.WEB_DIST === '' ? null : path.resolve(e.WEB_DIST || defaultWebDist),
    loginRateLimit: e.LOGIN_RATE_LIMIT,
    sampleCacheDir: path.resolve(e.SAMPLE_CACHE_DIR || path.join(dataDir, 'sample-cache')),
    imports: {
      maxFileBytes: e.IMPORT_MAX_FILE_MB * MB,
      maxUploadBytes: e.IMPORT_MAX_UPLOAD_MB * MB,
      maxWrittenBytes: e.IMPORT_MAX_WRITTEN_MB * MB,
      maxMemoryBytes: e.IMPORT_MAX_MEMORY_MB * MB,
      timeoutMs: e.IMPORT_TIMEOUT_SECONDS * 1000,
    },
    scriptedOrigin: scripted?.origin ?? null,
    scriptedPort: scripted ? (e.SCRIPTED_PORT ?? Number(scripted.port || (scripted.protocol === 'https:' ? 443 : 80))) : null,
    heavyRequests: { concurrency: e.HEAVY_REQUESTS || null, listingConcurrency: e.LISTING_REQUESTS || null, maxWaiting: e.HEAVY_REQUESTS_QUEUE, maxWaitMs: e.HEAVY_REQUESTS_WAIT_SECONDS * 1000 },
    searchThreads: e.SEARCH_THREADS,
    ...overrides,
  };
}
