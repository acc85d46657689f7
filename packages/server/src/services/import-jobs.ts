/**
 * Imports queued in the database, so that any server's worker may take one (docs/decisions.md "Imports
 * queued in the database"). An upload is a row of `import_jobs` and its files in the content store's upload area
 * (storage/content-store.ts UploadArea: `.uploads/<job id>/` in the local folder or the S3 bucket), so every server
 * sharing the store can run it; `area` names the area, and a server takes only jobs whose files it can read. The route
 * receives the files into a folder of this machine and `submit` streams them into the store and queues the job.
 * Every server runs one worker loop: it claims the oldest job (repositories/import-jobs.ts), fetches its files into
 * a folder of its own, runs them through today's import worker and bounds (services/import.ts), renews its lease
 * while it runs and records the report or why it failed; the stored upload goes when the job ends. A server killed
 * mid-import leaves a running job whose lease lapses; another server (or this one restarted) takes it again, up to
 * IMPORT_JOB_ATTEMPTS times, after which it is failed with that reason. A run that met the database or the store
 * down (util/unavailable.ts) is not the file's fault: the job is given back and tried again IMPORT_JOB_RETRY_MS
 * later, and if its last attempt meets it too the upload is answered 503. The upload route waits for the outcome
 * and answers as before. Uploads no job will run (the route stopped between storing and queuing, a job purged) are
 * swept (`sweep`). Jobs queued before uploads moved into the store name the old area (storage/legacy-uploads.ts): a
 * server that has that folder runs them from it, and a job no server can read is failed a day on (`sweep`).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type ImportReport, UNAVAILABLE_MESSAGES } from '@lectern/core';
import { serviceUnavailable } from '../errors.ts';
import type { ImportJobRow, ImportJobsRepository } from '../repositories/import-jobs.ts';
import type { ContentStore, UploadArea } from '../storage/content-store.ts';
import type { LegacyUploadArea } from '../storage/legacy-uploads.ts';
import { saidBy, unreachable, unreachableReason } from '../util/unavailable.ts';
import { type ImportService, reasonOf } from './import.ts';

/** How long a claim holds without being renewed; the worker renews it every third of that while it runs. */
export const IMPORT_JOB_LEASE_MS = 60_000;
/** How many times a job is taken (a server stopping mid-import counts one, a run the database failed too). */
export const IMPORT_JOB_ATTEMPTS = 3;
/** How long a job whose run met the database or the store down waits before it is taken again. */
export const IMPORT_JOB_RETRY_MS = 5_000;
/** Finished jobs are kept this long (the console's recent imports), then deleted by the retention purge. */
export const IMPORT_JOB_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** A stored upload whose job is gone or ended is swept once this old (the route stores the files, then queues). */
export const UPLOAD_ORPHAN_AFTER_MS = 60 * 60_000;
/** A stored upload this old is swept whatever its job (which is failed if it still waits). */
export const UPLOAD_MAX_AGE_MS = 24 * 60 * 60_000;
/** How often an idle worker looks for a job queued by another server (its own wake it at once). */
const IDLE_POLL_MS = 1_000;
/** How often a waiting upload asks whether another server finished its job (its own server tells it at once). */
const WAIT_POLL_MS = 250;
/** How long a waiting upload keeps asking while the database does not answer, before it answers 503 itself. */
const WAIT_UNREACHABLE_MS = 30_000;

/** What a job imports: the files as the route received them (their names as sent, their names in the upload). */
export interface ImportJobRequest {
  files: { name: string; at: string }[];
  topics: string[];
  /** the book a new edition replaces (`?replace=`), or null for new titles */
  replace: string | null;
}

export type ImportJobOutcome = { state: 'done'; report: ImportReport } | { state: 'failed'; error: string; unavailable: boolean };

/** An upload being received by the route: its job's id, and the folder of this machine its files go to first. */
export interface PendingUpload {
  readonly id: string;
  readonly dir: string;
  /** its files are in the store and its job queued: the worker that ends it removes them */
  queued: boolean;
  /** its outcome was read */
  ended: boolean;
  removeLocal(): Promise<void>;
}

/** A job still waiting when its upload was swept a day on. */
export const staleReason = 'the upload waited more than a day for an import worker of its store and was removed; send the file again';

/** A job no server read a day on: its area is one no running server has (the old area of a machine gone). */
export const unreadableReason = 'the upload waited more than a day and no import worker could read its files (they are on a server that no longer runs imports); send the file again';

/** Where a job's files wait: the store's upload area, or the area of the release before. */
type JobFiles = Pick<UploadArea, 'get' | 'remove'>;

export const exhaustedReason = (attempts: number) => `the import was stopped ${attempts} times before it finished (its server stopped or restarted); send the file again`;

export class ImportJobs {
  private area: string | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  /** uploads of this server waiting for their job, by job id */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    private readonly jobs: ImportJobsRepository,
    private readonly importer: Pick<ImportService, 'importUpload' | 'replaceUpload'>,
    /** where uploads wait (its upload area) and where runs fetch them to (a folder of this machine) */
    private readonly store: Pick<ContentStore, 'uploads' | 'beginUpload'>,
    /** this server, as written in claimed_by (services/scheduled-jobs.ts) */
    readonly serverId: string,
    private readonly now: () => Date = () => new Date(),
    private readonly onError: (err: unknown) => void = () => {},
    /** DATA_DIR/import-jobs, where jobs queued before the upgrade that moved uploads into the store wait */
    private readonly legacy: LegacyUploadArea | null = null,
  ) {}

  /**
   * The upload area's name: the store's (servers sharing the store read the same name). `create` at an upload; a
   * worker asks without, and finds no job of an area that has no name yet.
   */
  async areaId(create = false): Promise<string | null> {
    this.area ??= await this.store.uploads.id(create);
    return this.area;
  }

  /** A new upload: the folder of this machine the route receives its files into; then `submit`, and `end` always. */
  async begin(): Promise<PendingUpload> {
    const local = await this.store.beginUpload();
    return { id: randomUUID(), dir: local.dir, queued: false, ended: false, removeLocal: () => local.remove() };
  }

  /**
   * Streams the received files (`request.files[].at`, in the upload's folder) into the store's upload area and
   * queues the job; the first free worker of the area takes it. The database or the store not available is a 503
   * (nothing kept, nothing queued), never the file's fault.
   */
  async submit(upload: PendingUpload, ownerId: number | null, request: ImportJobRequest): Promise<void> {
    try {
      const area = (await this.areaId(true))!;
      for (const f of request.files) await this.store.uploads.put(upload.id, f.at, path.join(upload.dir, f.at));
      await this.jobs.insert({ id: upload.id, area, owner_id: ownerId, request: JSON.stringify(request), created_at: this.now().toISOString() });
    } catch (err) {
      // nothing kept of an upload that was not queued (what the store cannot remove now, the sweep will)
      await this.store.uploads.remove(upload.id).catch(this.onError);
      const what = unreachable(err);
      if (what) throw serviceUnavailable(UNAVAILABLE_MESSAGES.notKept(what, saidBy(err)));
      throw err;
    }
    upload.queued = true;
    this.wake?.();
    // the store holds the files now: none is left on this machine while the import waits and runs
    await upload.removeLocal();
  }

  /**
   * The route is done with the upload: its local folder goes, and once its job ended its stored files too (the
   * worker that ended it removes them, perhaps on another server and a moment after the outcome was read). A job
   * the route could not wait for keeps them for its worker, or the sweep.
   */
  async end(upload: PendingUpload): Promise<void> {
    await upload.removeLocal();
    if (upload.queued && upload.ended) await this.store.uploads.remove(upload.id).catch(this.onError);
  }

  /** The outcome the route answers: a job failed for want of the database or the store is a 503, not the file's 400. */
  async answer(upload: PendingUpload): Promise<ImportReport | { failed: string }> {
    const outcome = await this.outcome(upload.id);
    upload.ended = true;
    if (outcome.state === 'done') return outcome.report;
    if (outcome.unavailable) throw serviceUnavailable(UNAVAILABLE_MESSAGES.notFinished(outcome.error));
    return { failed: outcome.error };
  }

  /** The job's outcome, once a worker (of any server) has recorded it. */
  async outcome(id: string): Promise<ImportJobOutcome> {
    // while the database does not answer, asked again until WAIT_UNREACHABLE_MS have passed (a restart, a failover)
    let unanswered: number | null = null;
    for (;;) {
      let row: ImportJobRow | undefined | null = null;
      try {
        row = await this.jobs.find(id);
        unanswered = null;
      } catch (err) {
        const what = unreachable(err);
        if (!what) throw err;
        unanswered ??= performance.now();
        if (performance.now() - unanswered >= WAIT_UNREACHABLE_MS) throw serviceUnavailable(UNAVAILABLE_MESSAGES.stillWaiting(what, saidBy(err)));
      }
      if (row === undefined) throw new Error(`import job ${id} is gone`);
      if (row?.state === 'done') return { state: 'done', report: JSON.parse(row.report ?? '{"imported":[],"failed":[]}') as ImportReport };
      if (row?.state === 'failed') return { state: 'failed', error: row.error ?? 'import failed', unavailable: row.unavailable === 1 };
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

  /** The areas this server's worker reads: the store's (once named), and the old one when this DATA_DIR has it. */
  private async areas(): Promise<{ id: string; files: JobFiles }[]> {
    const areas: { id: string; files: JobFiles }[] = [];
    const area = await this.areaId();
    if (area !== null) areas.push({ id: area, files: this.store.uploads });
    const old = await this.legacy?.id();
    if (old && this.legacy && old !== area) areas.push({ id: old, files: this.legacy });
    return areas;
  }

  private told(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
  }

  /**
   * Takes one job and runs it to its outcome; false when there was none to take. Jobs whose lease lapsed after
   * their last attempt are failed first.
   */
  async workOnce(): Promise<boolean> {
    const areas = await this.areas();
    if (areas.length === 0) return false;
    const now = this.now();
    for (const { id: area, files } of areas) {
      for (const id of await this.jobs.failExhausted(area, now.toISOString(), IMPORT_JOB_ATTEMPTS, exhaustedReason(IMPORT_JOB_ATTEMPTS))) {
        await files.remove(id).catch(this.onError);
        this.told(id);
      }
    }
    let job: ImportJobRow | null = null;
    let files: JobFiles = this.store.uploads;
    for (const area of areas) {
      job = await this.jobs.claim(area.id, this.serverId, now.toISOString(), this.leaseFrom(now), IMPORT_JOB_ATTEMPTS);
      files = area.files;
      if (job) break;
    }
    if (!job) return false;
    const claimed = job;
    const heartbeat = setInterval(() => {
      this.jobs.renew(claimed.id, this.serverId, this.leaseFrom(this.now())).catch(this.onError);
    }, IMPORT_JOB_LEASE_MS / 3);
    let outcome: ImportJobOutcome;
    try {
      outcome = { state: 'done', report: await this.run(job, files) };
    } catch (err) {
      const what = unreachable(err);
      if (what && job.attempts < IMPORT_JOB_ATTEMPTS) {
        // Not the file's fault: back to the queue, taken again (by any server of the area) once the pause is over.
        // If even this cannot be written, the lease lapses and the job is taken again all the same.
        const retryAt = new Date(this.now().getTime() + IMPORT_JOB_RETRY_MS).toISOString();
        await this.jobs.release(job.id, this.serverId, retryAt, unreachableReason(err)).catch(this.onError);
        return true;
      }
      outcome = { state: 'failed', error: what ? unreachableReason(err) : reasonOf(err), unavailable: what !== null };
    } finally {
      clearInterval(heartbeat);
    }
    const finished = outcome.state === 'done' ? ({ state: 'done', report: JSON.stringify(outcome.report) } as const) : outcome;
    if (await this.jobs.finish(job.id, this.serverId, finished, this.now().toISOString())) {
      await files.remove(job.id).catch(this.onError);
    }
    this.told(job.id);
    return true;
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + IMPORT_JOB_LEASE_MS).toISOString();
  }

  /**
   * Runs a job through today's importer on copies of its files fetched from the store's upload area into a folder
   * of this attempt's own (a media upload's files are moved into a tree as they are read, and a later attempt must
   * find them where the route put them). A file refused (not a book, too big) is in the report; the database or the
   * store failing is thrown, for the queue to try again.
   */
  private async run(job: ImportJobRow, from: JobFiles): Promise<ImportReport> {
    const request = JSON.parse(job.request) as ImportJobRequest;
    const work = await this.store.beginUpload();
    try {
      const files: { name: string; path: string }[] = [];
      for (const [i, f] of request.files.entries()) {
        const to = path.join(work.dir, String(i));
        await from.get(job.id, path.basename(f.at), to);
        files.push({ name: f.name, path: to });
      }
      const options = { topics: request.topics };
      if (request.replace === null) return await this.importer.importUpload(files, work.dir, { ...options, origin: 'upload' });
      const shown = files.length === 1 ? files[0]!.name : `${files.length} files`;
      try {
        return { imported: [await this.importer.replaceUpload(files, work.dir, request.replace, { ...options, origin: `upload ${shown}` })], failed: [] };
      } catch (err) {
        if (unreachable(err)) throw err;
        return { imported: [], failed: [{ file: shown, reason: reasonOf(err) }] };
      }
    } finally {
      await work.remove();
    }
  }

  /**
   * Removes the stored uploads no job will run: those whose job is gone or ended, once UPLOAD_ORPHAN_AFTER_MS old,
   * and any older than UPLOAD_MAX_AGE_MS (its job, if it still waits, failed with that reason); the old area's job
   * folders alike. Then fails the jobs still waiting UPLOAD_MAX_AGE_MS after they were queued that no server took,
   * whatever their area (one only a machine gone could read). Answers how many uploads it removed.
   */
  async sweep(): Promise<number> {
    const now = this.now();
    let swept = 0;
    const areas: { files: JobFiles & { list(): AsyncIterable<{ upload: string; modified: Date }> } }[] = [{ files: this.store.uploads }];
    if (this.legacy && (await this.legacy.id())) areas.push({ files: this.legacy });
    for (const { files } of areas) {
      for await (const upload of files.list()) {
        const age = now.getTime() - upload.modified.getTime();
        if (age < UPLOAD_ORPHAN_AFTER_MS) continue;
        const job = await this.jobs.find(upload.upload);
        const ended = !job || job.state === 'done' || job.state === 'failed';
        if (!ended) {
          if (age < UPLOAD_MAX_AGE_MS) continue;
          if (await this.jobs.failUnfinished(upload.upload, staleReason, now.toISOString())) this.told(upload.upload);
        }
        // one that cannot be removed (a name no upload has, a file the store refuses) does not stop the others
        try {
          await files.remove(upload.upload);
          swept++;
        } catch (err) {
          this.onError(err);
        }
      }
    }
    const queuedBefore = new Date(now.getTime() - UPLOAD_MAX_AGE_MS).toISOString();
    for (const id of await this.jobs.failWaitingSince(queuedBefore, now.toISOString(), unreadableReason)) this.told(id);
    return swept;
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
