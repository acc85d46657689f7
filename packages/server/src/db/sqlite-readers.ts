/**
 * SQLite reads off the event loop (docs/decisions.md "Searches read SQLite on threads of their own"). better-sqlite3
 * is synchronous: a search's statements at 100,000 titles run for tens of milliseconds each on the thread that asks,
 * and every other request (even `/healthz`) waits for them. A small pool of worker threads, each with its own
 * read-only connection (sqlite-reader-worker.mjs), runs them instead; the main thread only sends the SQL and takes
 * the rows. The pool is as large as the searches that run at once (the heavy gate, util/gate.ts), so a search in
 * its turn finds a thread free; more queries than threads wait here in order of arrival.
 *
 * Reads only: a reader's connection cannot write, and WAL lets it read while the main connection writes. Each
 * statement sees what was committed before it began (a title imported a moment ago is found at once); a search's
 * statements are not one snapshot, as they were not on the main connection either (each its own implicit
 * transaction there too).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Database } from './schema.ts';

const WORKER = new URL('./sqlite-reader-worker.mjs', import.meta.url);

/** A statement's failure in a reader thread, with SQLite's code (SQLITE_ERROR, SQLITE_BUSY...) when it gave one. */
export class ReaderError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ReaderError';
  }
}

interface Job {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  job: Job | null;
  /** it ended (crashed, or was terminated): never given another job */
  dead: boolean;
}

export class ReaderPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly driver: string;

  constructor(
    /** the database file (the main connection has opened it in WAL mode and migrated it) */
    readonly file: string,
    /** how many threads at most; started when first needed */
    readonly size: number,
    /** the thread's script (tests give one that fails in ways the real one should not) */
    private readonly script: URL = WORKER,
  ) {
    if (!(size >= 1)) throw new Error(`a reader pool has at least one thread (got ${size})`);
    // the same driver the main connection chose for this Node (db/database.ts sqliteDriver)
    const require = createRequire(import.meta.url);
    this.driver = require.resolve(Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
  }

  /** statements answered (rows or an error) since the start */
  private answered = 0;

  /** Threads started and alive, those running a statement, statements waiting for one, statements answered. */
  get load(): { threads: number; busy: number; waiting: number; answered: number } {
    return { threads: this.threads.length, busy: this.threads.filter((t) => t.job).length, waiting: this.queue.length, answered: this.answered };
  }

  /** The rows of one read statement, run on a reader thread. */
  query(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new ReaderError('the database readers are closed', null));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, sql, parameters, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      const thread = this.threads.find((t) => !t.job) ?? (this.threads.length < this.size ? this.start() : null);
      if (!thread) return;
      const job = this.queue.shift()!;
      thread.job = job;
      // a busy thread keeps the process alive until its answer is in; an idle one does not (a command line exits)
      thread.worker.ref();
      thread.worker.postMessage({ id: job.id, sql: job.sql, parameters: job.parameters });
    }
  }

  private start(): Thread {
    const worker = new Worker(this.script, { workerData: { file: this.file, driver: this.driver } });
    const thread: Thread = { worker, job: null, dead: false };
    worker.on('message', (msg: { id: number; rows?: unknown[]; error?: { message: string; code: string | null } }) => {
      const job = thread.job;
      if (!job || job.id !== msg.id) return;
      thread.job = null;
      worker.unref();
      this.answered++;
      if (msg.error) job.reject(new ReaderError(msg.error.message, msg.error.code));
      else job.resolve(msg.rows!);
      this.idle();
      this.dispatch();
    });
    // A thread that fails outside a statement (it could not open the file) or exits fails its job, not the server;
    // it leaves the pool, and the next query starts a new thread in its place.
    const end = (err: Error) => {
      if (thread.dead) return;
      thread.dead = true;
      const at = this.threads.indexOf(thread);
      if (at >= 0) this.threads.splice(at, 1);
      thread.job?.reject(err);
      thread.job = null;
      this.idle();
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (err) => end(new ReaderError(`a database reader failed: ${err.message}`, null)));
    worker.on('exit', (code) => end(new ReaderError(`a database reader stopped (exit code ${code})`, null)));
    this.threads.push(thread);
    return thread;
  }

  private waitingForIdle: (() => void)[] = [];
  private idle(): void {
    if (this.threads.some((t) => t.job)) return;
    for (const resolve of this.waitingForIdle.splice(0)) resolve();
  }

  /**
   * Stops the pool: queries not yet started are refused, those running are let finish (they only read) for at most
   * `graceMs` — a statement that runs on past it must not hold the server's shutdown —, then the threads end (a
   * running one's query fails). Queries asked after this are refused.
   */
  async close(graceMs = 5_000): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new ReaderError('the database readers are closed', null));
    if (this.threads.some((t) => t.job)) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.waitingForIdle.push(resolve)),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(grace);
    }
    // A thread inside a statement ends only when SQLite returns (termination cannot interrupt native code), so the
    // wait for the threads is bounded too; the process's exit takes any still running.
    const ended = Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

/** A kysely on the pool: read queries only (no transactions, no streaming); the SQL is SQLite's as compiled here. */
export function readerKysely(pool: ReaderPool): Kysely<Database> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return { rows: (await pool.query(query.sql, query.parameters)) as R[] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
      throw new Error('the database readers do not stream');
    },
  };
  const noTransactions = async () => {
    throw new Error('the database readers only read: transactions run on the main connection');
  };
  const driver: Driver = {
    init: async () => {},
    // one connection object for every caller: each query goes to whichever thread is free, so there is nothing to hold
    acquireConnection: async () => connection,
    releaseConnection: async () => {},
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    destroy: () => pool.close(),
  };
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
  return new Kysely<Database>({ dialect });
}
