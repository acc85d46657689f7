/**
 * Scheduled jobs run once per period across every server on one database (docs/decisions.md "Scheduled
 * jobs once across servers"). A job every `everyMs` has periods floor(now / everyMs); each server's timer ticks
 * on its own, and the first tick of a period to claim (job, period) in the database does the work; the other
 * servers' ticks in that period skip it. A claim that is not finished within its lease (the claimer was killed
 * mid-run) is taken over by the next tick of any server; a run that fails drops its claim so another tick retries.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { JobClaimsRepository } from '../repositories/job-claims.ts';

/** How long a claim may stay unfinished before another server takes it over (at most the job's own interval). */
export const JOB_CLAIM_LEASE_MS = 10 * 60_000;
/** Claims are kept this long, then deleted by the retention purge. */
export const JOB_CLAIM_RETENTION_MS = 7 * 24 * 60 * 60_000;

export class ScheduledJobs {
  constructor(
    private readonly claims: JobClaimsRepository,
    /** this server, as written in claimed_by: host, process and a random part (a restarted pid is another server) */
    readonly serverId: string = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The period number `at` falls in for a job every `everyMs`. */
  static period(everyMs: number, at: Date): string {
    return String(Math.floor(at.getTime() / everyMs));
  }

  /**
   * Runs `work` if this server claims this period of `job`; returns whether it ran. The work's error is thrown
   * after the claim is released.
   */
  async runOnce(job: string, everyMs: number, work: () => Promise<unknown>): Promise<boolean> {
    const now = this.now();
    const period = ScheduledJobs.period(everyMs, now);
    const staleBefore = new Date(now.getTime() - Math.min(everyMs, JOB_CLAIM_LEASE_MS)).toISOString();
    if (!(await this.claims.claim(job, period, this.serverId, now.toISOString(), staleBefore))) return false;
    try {
      await work();
    } catch (err) {
      await this.claims.release(job, period, this.serverId);
      throw err;
    }
    await this.claims.finish(job, period, this.serverId, this.now().toISOString());
    return true;
  }

  /** When each job last ran to its end on any server (the console's health page), by job name. */
  async lastRuns(): Promise<Map<string, string>> {
    return new Map((await this.claims.lastFinished()).map((r) => [r.job, r.claimed_at]));
  }

  /** Forgets claims older than JOB_CLAIM_RETENTION_MS. */
  purge(): Promise<number> {
    return this.claims.deleteClaimedBefore(new Date(this.now().getTime() - JOB_CLAIM_RETENTION_MS).toISOString());
  }
}
