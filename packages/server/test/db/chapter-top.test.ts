/**
 * The reader's furthest position in a chapter (ProgressRepository.chapterTop, the block request's one statement),
 * on both engines: the committed figure, 0 for a chapter never read; on SQLite read at once outside a transaction
 * (db/database.ts SyncGet), and while a transaction is open on the connection never its uncommitted writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgressRepository } from '../../src/repositories/progress.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { bareTitleRow } from '../helpers/rows.ts';

describe.each(ENGINES)('the furthest position in a chapter (%s)', (engine) => {
  let t: TestApp;
  let ids: { user: number; title: number; read: number };
  beforeAll(async () => {
    t = await startTestApp(engine);
    const k = t.lectern.db.kysely;
    const now = new Date().toISOString();
    const title = await k
      .insertInto('titles')
      .values(bareTitleRow('chapter-top', { title: 'Chapter top', title_safe: 'Chapter top', created_at: now }))
      .returning('id')
      .executeTakeFirstOrThrow();
    const chapter = async (i: number) =>
      (
        await k
          .insertInto('chapters')
          .values({ title_id: title.id, full_path: `c${i}.xhtml`, label: `${i}`, item_order: i, media_type: 'application/xhtml+xml', content: '', stylesheets: '[]', text_length: 10, as_sample: 0, is_public: 0, sample_content: null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const read = await chapter(0);
    await chapter(1);
    const user = await k
      .insertInto('users')
      .values({ uuid: 'u-chapter-top', email: 'top@example.com', username: 'top@example.com', password_hash: 'x', status: 'subscriber', trial_ends_at: null, team_id: null, is_admin: 0, is_content_creator: 0, is_preview_creator: 0, created_at: now, plan: null, subscription_ends_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await k.insertInto('chapter_progress').values({ user_id: user.id, chapter_id: read, title_id: title.id, top_percentage: 40.5, updated_at: now }).execute();
    ids = { user: user.id, title: title.id, read };
  });
  afterAll(() => t.close());

  const repo = () => new ProgressRepository(t.lectern.db.kysely, t.lectern.db.syncGet);

  it('is the stored figure, and 0 for a chapter never read or another reader', async () => {
    expect(await repo().chapterTop(ids.user, ids.title, 'c0.xhtml')).toBe(40.5);
    expect(await repo().chapterTop(ids.user, ids.title, 'c1.xhtml')).toBe(0);
    expect(await repo().chapterTop(ids.user + 1000, ids.title, 'c0.xhtml')).toBe(0);
    // the same through kysely alone (a transaction's repository, PostgreSQL)
    expect(await new ProgressRepository(t.lectern.db.kysely).chapterTop(ids.user, ids.title, 'c0.xhtml')).toBe(40.5);
  });

  it('is read at once on SQLite outside a transaction, through kysely on PostgreSQL', () => {
    const top = repo().chapterTop(ids.user, ids.title, 'c0.xhtml');
    if (engine === 'sqlite') expect(top).toBe(40.5);
    else expect(top).toBeInstanceOf(Promise);
  });

  it('never reads what an open transaction has written and not committed', async () => {
    let during: number | Promise<number> | undefined;
    await expect(
      t.lectern.db.kysely.transaction().execute(async (trx) => {
        await trx.updateTable('chapter_progress').set({ top_percentage: 80 }).where('user_id', '=', ids.user).where('chapter_id', '=', ids.read).execute();
        // not awaited in here: on SQLite it waits for the connection, which this transaction holds
        during = repo().chapterTop(ids.user, ids.title, 'c0.xhtml');
        expect(typeof during).not.toBe('number');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await during).toBe(40.5);
    expect(await repo().chapterTop(ids.user, ids.title, 'c0.xhtml')).toBe(40.5);
  });
});
