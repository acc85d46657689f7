/**
 * SQLite is the one-machine default: one server per DATA_DIR (docs/decisions.md "One server per SQLite
 * library"). A starting server holds an exclusive lock on `DATA_DIR/lectern.lock`, a small SQLite file opened in
 * EXCLUSIVE locking mode and written once, so SQLite's own file lock is held until the process ends, however it
 * ends (kill -9 included: the operating system drops the lock, there is no stale pid file to clean up). A second
 * server on the same DATA_DIR cannot take it and stops with one line (startup-errors.ts). The command line
 * (imports, users) does not take it: it writes beside one running server, as it always has.
 */
import fs from 'node:fs';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { sqliteDriver } from './database.ts';

export const SERVER_LOCK_FILE = 'lectern.lock';

/** Another server holds DATA_DIR's lock. */
export class LibraryInUse extends Error {
  readonly code = 'LECTERN_LIBRARY_IN_USE';
  constructor(readonly dataDir: string) {
    super(`another Lectern server is using ${dataDir}`);
  }
}

let held: SQLite.Database | null = null;

/** Takes DATA_DIR's server lock for the life of this process; throws LibraryInUse when another server has it. */
export function holdServerLock(dataDir: string): void {
  if (held) return;
  fs.mkdirSync(dataDir, { recursive: true });
  const file = new (sqliteDriver())(path.join(dataDir, SERVER_LOCK_FILE), { timeout: 0 });
  try {
    file.pragma('locking_mode = EXCLUSIVE');
    // the first write takes the exclusive lock, which EXCLUSIVE mode keeps after the commit
    file.exec(`create table if not exists server (pid integer not null, started_at text not null);
      delete from server;`);
    file.prepare('insert into server (pid, started_at) values (?, ?)').run(process.pid, new Date().toISOString());
  } catch (err) {
    file.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new LibraryInUse(dataDir);
    throw err;
  }
  held = file;
}
