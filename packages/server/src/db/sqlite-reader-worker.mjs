/**
 * A SQLite reader thread (db/sqlite-readers.ts): its own read-only connection to the library's database, running
 * the statements the main thread sends and answering with their rows, so that a long statement (a search at 100,000
 * titles) holds this thread, not the server's event loop. Plain JavaScript: a worker thread starts from a file Node
 * loads as is, under tsx, under vitest and compiled alike.
 *
 * workerData: { file: the database file, driver: the path better-sqlite3 resolves to for this Node }.
 * Messages in: { id, sql, parameters }; out: { id, rows } or { id, error: { message, code } }.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const Database = require(workerData.driver);

// Read-only: this connection can never write, whatever it is sent. WAL (set by the main connection, persistent in
// the file) lets it read while the main connection writes; each statement outside a transaction sees everything
// committed before it started, so a title imported a moment ago is searchable at once.
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');

// Prepared statements kept by SQL text, as the main connection keeps its own (db/database.ts).
const MAX_STATEMENTS = 500;
const statements = new Map();
function prepared(sql) {
  let stmt = statements.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value);
    statements.set(sql, stmt);
  }
  return stmt;
}

parentPort.on('message', (job) => {
  try {
    const stmt = prepared(job.sql);
    if (!stmt.reader) throw Object.assign(new Error('a reader thread runs statements that return rows only'), { code: 'LECTERN_NOT_A_READ' });
    parentPort.postMessage({ id: job.id, rows: stmt.all(job.parameters) });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: { message: String(err?.message ?? err), code: err?.code ?? null } });
  }
});
