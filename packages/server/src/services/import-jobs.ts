/**
 * Imports queued in the database, so that any server's worker may take one (docs/decisions.md "Imports
 * queued in the database"). An upload is a row of `import_jobs` and a folder in the upload area (DATA_DIR/import-jobs:
 * servers that share that folder share the work; `area` names it, and a server takes only jobs whose files it can
 * read). Every server runs one worker loop: it claims the oldest job (repositories/import-jobs.ts), runs it with
 * today's import worker and bounds (services/import.ts), renews its lease while it runs and records the report or
 * why it failed. A server killed mid-import leaves a running job whose lease lapses; another server (or this one
 * restarted) takes it again, up to IMPORT_JOB_ATTEMPTS times, after which it is failed with that reason. The upload
 * route waits for the outcome and answers as before.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ImportReport } from '@lectern/core';
import type { ImportJobRow, ImportJobsRepository } from '../repositories/import-jobs.ts';
import { randomToken } from '../util/random.ts';
import { type ImportService, reasonOf } from './import.ts';

/** How long a claim holds without being renewed; the worker renews it every third of that while it runs. */
export const IMPORT_JOB_LEASE_MS = 60_000;
/** How many times a job is taken (a server stopping mid-import counts one) before it is failed. */
export const IMPORT_JOB_ATTEMPTS = 3;
/** Finished jobs are kept this long (the console's recent imports), then deleted by the retention purge. */
export const IMPORT_JOB_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** How often an idle worker looks for a job queued by another server (its own wake it at once). */
const IDLE_POLL_MS = 1_000;
/** How often a waiting upload asks whether another server finished its job (its own server tells it at once). */
const WAIT_POLL_MS = 250;

/** What a job imports: the files as the route received them (their names as sent, their place in the job's folder). */
export interface ImportJobRequest {
  files: { name: string; at: string }[];
  topics: string[];
  /** the book a new edition replaces (`?replace=`), or null for new titles */
  replace: string | null;
}

export type ImportJobOutcome = { state: 'done'; report: ImportReport } | { state: 'failed'; error: string };

export const exhaustedReason = (attempts: number) => `the import was stopped ${attempts} times before it finished (its server stopped or restarted); send the file again`;

export class ImportJobs {
  private area: Promise<string> | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  /** uploads of this server waiting for their job, by job id */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    private readonly jobs: ImportJobsRepository,
    private readonly importer: Pick<ImportService, 'importUpload' | 'replaceUpload'>,
    /** the upload area: one folder per job */
    readonly root: string,
    /** this server, as written in claimed_by (services/scheduled-jobs.ts) */
    readonly serverId: string,
    private readonly now: () => Date = () => new Date(),
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The upload area's name, written in it the first time (servers sharing the folder read the same name). */
  areaId(): Promise<string> {
    this.area ??= (async () => {
      await fs.mkdir(this.root, { recursive: true });
      const marker = path.join(this.root, 'area');
      await fs.writeFile(marker, randomToken(12), { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      return (await fs.readFile(marker, 'utf8')).trim();
    })();
    return this.area;
  }

  private folder(id: string): string {
    return path.join(this.root, id);
  }

  /** A job's folder for the route to receive the files into (`dir`); `remove()` takes the folder away. */
  async begin(): Promise<{ id: string; dir: string; remove(): Promise<void> }> {
    await this.areaId();
    const id = randomUUID();
    const dir = path.join(this.folder(id), 'files');
    await fs.mkdir(dir, { recursive: true });
    return { id, dir, remove: () => fs.rm(this.folder(id), { recursive: true, force: true }) };
  }

  /** Queues the job whose files are in its folder; the first free worker of the area takes it. */
  async submit(id: string, ownerId: number | null, request: ImportJobRequest): Promise<void> {
    await this.jobs.insert({ id, area: await this.areaId(), owner_id: ownerId, request: JSON.stringify(request), created_at: this.now().toISOString() });
    this.wake?.();
  }

  /** The job's outcome, once a worker (of any server) has recorded it. */
  async outcome(id: string): Promise<ImportJobOutcome> {
    for (;;) {
      const row = await this.jobs.find(id);
      if (!row) throw new Error(`import job ${id} is gone`);
      if (row.state === 'done') return { state: 'done', report: JSON.parse(row.report ?? '{"imported":[],"failed":[]}') as ImportReport };
      if (row.state === 'failed') return { state: 'failed', error: row.error ?? 'import failed' };
      await new Promise<void>((resolve) => {
        const waiters = this.waiting.get(id) ?? new Set();
        this.waiting.set(id, waiters);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          if (waiters.size === 0) this.waiting.delete(id);
          resolve();
        };
        const timer = setTimeout(done, WAIT_POLL_MS);
        waiters.add(done);
      });
    }
  }

  private told(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
  }

  /**
   * Takes one job and runs it to its outcome; false when there was none to take. Jobs whose lease lapsed after
   * their last attempt are failed first.
   */
  async workOnce(): Promise<boolean> {
    const area = await this.areaId();
    const now = this.now();
    for (const id of await this.jobs.failExhausted(area, now.toISOString(), IMPORT_JOB_ATTEMPTS, exhaustedReason(IMPORT_JOB_ATTEMPTS))) {
      await fs.rm(this.folder(id), { recursive: true, force: true });
      this.told(id);
    }
    const job = await this.jobs.claim(area, this.serverId, now.toISOString(), this.leaseFrom(now), IMPORT_JOB_ATTEMPTS);
    if (!job) return false;
    const heartbeat = setInterval(() => {
      this.jobs.renew(job.id, this.serverId, this.leaseFrom(this.now())).catch(this.onError);
    }, IMPORT_JOB_LEASE_MS / 3);
    let outcome: ImportJobOutcome;
    try {
      outcome = { state: 'done', report: await this.run(job) };
    } catch (err) {
      outcome = { state: 'failed', error: reasonOf(err) };
    } finally {
      clearInterval(heartbeat);
    }
    const finished = outcome.state === 'done' ? ({ state: 'done', report: JSON.stringify(outcome.report) } as const) : outcome;
    if (await this.jobs.finish(job.id, this.serverId, finished, this.now().toISOString())) {
      await fs.rm(this.folder(job.id), { recursive: true, force: true });
    }
    this.told(job.id);
    return true;
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + IMPORT_JOB_LEASE_MS).toISOString();
  }

  /**
   * Runs a job through today's importer on links to its files in a folder of this attempt's own: a media upload's
   * files are moved into a tree as it is read, and a later attempt must find them where the route put them.
   */
  private async run(job: ImportJobRow): Promise<ImportReport> {
    const request = JSON.parse(job.request) as ImportJobRequest;
    const folder = this.folder(job.id);
    const work = path.join(folder, `work-${job.attempts}`);
    await fs.rm(work, { recursive: true, force: true });
    await fs.mkdir(work, { recursive: true });
    try {
      const files: { name: string; path: string }[] = [];
      for (const [i, f] of request.files.entries()) {
        const from = path.join(folder, 'files', path.basename(f.at));
        const to = path.join(work, String(i));
        await fs.link(from, to).catch(() => fs.copyFile(from, to));
        files.push({ name: f.name, path: to });
      }
      const options = { topics: request.topics };
      if (request.replace === null) return await this.importer.importUpload(files, work, { ...options, origin: 'upload' });
      const shown = files.length === 1 ? files[0]!.name : `${files.length} files`;
      try {
        return { imported: [await this.importer.replaceUpload(files, work, request.replace, { ...options, origin: `upload ${shown}` })], failed: [] };
      } catch (err) {
        return { imported: [], failed: [{ file: shown, reason: reasonOf(err) }] };
      }
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  }

  /** Starts this server's worker loop (app.ts, when the server is ready). */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = (async () => {
      while (!this.stopping) {
        let worked = false;
        try {
          worked = await this.workOnce();
        } catch (err) {
          this.onError(err);
        }
        if (worked || this.stopping) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.wake = null;
            resolve();
          }, IDLE_POLL_MS);
          this.wake = () => {
            clearTimeout(timer);
            this.wake = null;
            resolve();
          };
        });
      }
    })();
  }

  /** Stops taking jobs; resolves once the job under way (if any) has its outcome. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /** Jobs running and waiting on every server (the console's health page). */
  load(): Promise<{ running: number; waiting: number }> {
    return this.jobs.load();
  }

  /** Forgets finished jobs older than IMPORT_JOB_RETENTION_MS (the retention purge). */
  purge(): Promise<number> {
    return this.jobs.purgeFinishedBefore(new Date(this.now().getTime() - IMPORT_JOB_RETENTION_MS).toISOString());
  }
}
