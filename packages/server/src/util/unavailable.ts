/**
 * Failures that are not the request's fault: the database or the content store could not be reached, or could not
 * take the write just then (a restart or failover, a dropped connection, a lock held past the wait, a full disk, the
 * store answering 5xx or not at all). A request that meets one answers 503 (plugins/errors.ts), and an import that
 * meets one is retried by the queue, never reported as a bad file (docs/decisions.md "An import the database or the
 * store failed is not the file's fault").
 */

/** Which part could not be reached, as said to people. */
export type Unreachable = 'database' | 'content store';

/**
 * A failure of `what`, said as such: the S3 store wraps its socket failures in one (a streamed PUT is not retried by
 * the client, so its error does not carry the client's $metadata, and would read as the database's).
 */
export class Unavailable extends Error {
  override name = 'Unavailable';
  readonly code: string | undefined;
  constructor(
    readonly what: Unreachable,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/** `err` from the content store: a socket's failure becomes the store's Unavailable; anything else is as it was. */
export function asStoreFailure(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code) ? new Unavailable('content store', err) : err;
}

/** Socket and resolver failures: the other side (database or store) did not answer. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);
/** A disk that cannot take the write: not the file's fault either. */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS']);
/** SQLite: another writer held the lock past busy_timeout, or the disk failed or filled. */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|NOLFS)/;
/**
 * PostgreSQL's SQLSTATE classes: 08 connection exception, 53 insufficient resources (disk full, out of memory, too
 * many connections), 57P0x operator intervention (shutdown, crash, cannot connect now, database dropped), 58 system
 * error (I/O); 40001/40P01 a serialization failure or deadlock (run it again); 55000 only as "not currently accepting
 * connections" (ALLOW_CONNECTIONS false).
 */
const PG_STATE = /^(08|53|57P0|58)/;
/** What pg says without a code when the connection goes or never comes. */
const PG_WORDS = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|Connection ended unexpectedly/i;

/** What could not be reached, when `err` is such a failure (its causes looked at too); null for anything else. */
export function unreachable(err: unknown, depth = 0): Unreachable | null {
  if (!err || typeof err !== 'object' || depth > 4) return null;
  if (err instanceof Unavailable) return err.what;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; $metadata?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  // The S3 client's errors carry $metadata (its retries add it to a socket's error too): the store answered 5xx or
  // 429 (throttled), or nothing at all. A 4xx otherwise (a key refused, a bucket missing) is a setting to fix.
  if (e.$metadata && typeof e.$metadata === 'object') {
    const status = (e.$metadata as { httpStatusCode?: unknown }).httpStatusCode;
    if (typeof status !== 'number' || status >= 500 || status === 429) return 'content store';
    return null;
  }
  if (SQLITE_CODES.test(code)) return 'database';
  if (/^[0-9A-Z]{5}$/.test(code) && (PG_STATE.test(code) || code === '40001' || code === '40P01' || (code === '55000' && /not currently accepting connections/i.test(message)))) return 'database';
  if (!code && PG_WORDS.test(message)) return 'database';
  // a socket's failure without the store's mark is pg's (the only other client a request uses)
  if (NETWORK_CODES.has(code)) return 'database';
  if (DISK_CODES.has(code)) return 'content store';
  // AggregateError (a connect to every address of a host refused)
  if (Array.isArray(e.errors)) for (const inner of e.errors) if (unreachable(inner, depth + 1)) return unreachable(inner, depth + 1);
  return unreachable(e.cause, depth + 1);
}

/** What the part said, in one line (a socket error's code when it has no words). */
export function saidBy(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | null;
  const message = typeof e?.message === 'string' && e.message ? e.message : typeof e?.code === 'string' ? e.code : String(err);
  return message.split('\n')[0]!.slice(0, 300);
}

/** The reason for people: which part, and what it said. */
export function unreachableReason(err: unknown): string {
  return `the library's ${unreachable(err) ?? 'database'} was not available (${saidBy(err)})`;
}
