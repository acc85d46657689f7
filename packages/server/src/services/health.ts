/** Whether the server can do its work: today, whether the database answers (GET /healthz). */
import type { Engine } from '../db/database.ts';
import type { HealthRepository } from '../repositories/health.ts';

export class HealthService {
  constructor(
    private readonly repo: HealthRepository,
    readonly engine: Engine,
  ) {}

  /** Resolves when the database answers; rejects with the driver's error when it does not. */
  check(): Promise<void> {
    return this.repo.ping();
  }
}
