/**
 * Which failures are the database's or the store's outages (util/unavailable.ts), on errors the real clients throw
 * where this machine can make them (a refused PostgreSQL connection, SQLite's lock held past the wait, the S3
 * client against a closed port and a missing key on s3rver) and on PostgreSQL's codes as its server sends them.
 * What is not an outage stays a file's or a request's fault.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../src/db/database.ts';
import { IngestError } from '../../src/ingest/types.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { unreachable, unreachableReason } from '../../src/util/unavailable.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const thrown = async (work: () => unknown): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('it did not fail');
};

let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startS3();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-unavailable-'));
});
afterAll(async () => {
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the real clients’ failures', () => {
  it('PostgreSQL refusing the connection is the database', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/x` });
    const err = await thrown(() => client.connect());
    expect(unreachable(err)).toBe('database');
    expect(unreachableReason(err)).toMatch(/^the library's database was not available \(.*ECONNREFUSED.*\)$/);
  });

  it("SQLite's write lock held past the wait is the database; a unique violation is not", () => {
    const file = path.join(dir, 'locked.sqlite');
    const holder = new (sqliteDriver())(file);
    const other = new (sqliteDriver())(file, { timeout: 50 });
    try {
      holder.exec('create table t (x integer primary key)');
      holder.exec('insert into t values (1)');
      holder.exec('begin immediate');
      let busy: unknown = null;
      try {
        other.exec('insert into t values (2)');
      } catch (err) {
        busy = err;
      }
      holder.exec('rollback');
      expect(unreachable(busy)).toBe('database');
      let unique: unknown = null;
      try {
        other.exec('insert into t values (1)');
      } catch (err) {
        unique = err;
      }
      expect((unique as { code: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
      expect(unreachable(unique)).toBeNull();
    } finally {
      other.close();
      holder.close();
    }
  });

  it('the S3 store not answering is the content store; a key it does not have is not', async () => {
    const down = new S3ContentStore({ ...s3.settings('down'), endpoint: `http://127.0.0.1:${await closedPort()}` }, dir);
    const err = await thrown(() => down.stat('book/00000.css'));
    expect(unreachable(err)).toBe('content store');
    expect(unreachableReason(err)).toMatch(/^the library's content store was not available \(.+\)$/);
    // a streamed PUT, which the client does not retry (so its error has none of the client's marks)
    const file = path.join(dir, 'part');
    fs.writeFileSync(file, 'bytes of an upload');
    expect(unreachable(await thrown(() => down.uploads.put('job-1', '0', file)))).toBe('content store');
    const up = new S3ContentStore(s3.settings('up'), dir);
    const missing = await thrown(() => up.read('book/missing.css'));
    expect((missing as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(404);
    expect(unreachable(missing)).toBeNull();
  });
});

describe("PostgreSQL's codes, as its server sends them", () => {
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });
  it.each([
    ['57P01', 'terminating connection due to administrator command', 'database'],
    ['57P03', 'the database system is shutting down', 'database'],
    ['08006', 'connection failure', 'database'],
    ['53300', 'sorry, too many clients already', 'database'],
    ['53100', 'could not extend file: No space left on device', 'database'],
    ['40001', 'could not serialize access due to concurrent update', 'database'],
    ['55000', 'database "lectern" is not currently accepting connections', 'database'],
    ['55000', 'object not in prerequisite state', null],
    ['23505', 'duplicate key value violates unique constraint "titles_book_id_key"', null],
    ['22P02', 'invalid input syntax for type integer', null],
  ] as const)('%s (%s): %s', (code, message, what) => {
    expect(unreachable(pgError(code, message))).toBe(what);
  });

  it("pg's own words for a connection gone, and a cause or an AggregateError holding one", () => {
    expect(unreachable(new Error('Connection terminated unexpectedly'))).toBe('database');
    expect(unreachable(new Error('Client has encountered a connection error and is not queryable'))).toBe('database');
    expect(unreachable(new Error('outer', { cause: pgError('57P01', 'terminating connection') }))).toBe('database');
    expect(unreachable(new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })]))).toBe('database');
    expect(unreachable(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))).toBe('content store');
  });

  it("a file's own faults and plain errors are not outages", () => {
    expect(unreachable(new IngestError('not an EPUB: the zip has no META-INF/container.xml'))).toBeNull();
    expect(unreachable(new Error('the import worker stopped unexpectedly (SIGKILL)'))).toBeNull();
    expect(unreachable(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' }))).toBeNull();
    expect(unreachable('a string')).toBeNull();
    expect(unreachable(null)).toBeNull();
  });
});
