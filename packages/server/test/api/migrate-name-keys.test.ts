/**
 * Migration 0050 (docs/decisions.md "Text folding: one rule in core"), on both engines: titles, authors, topics and
 * publishers keyed by the old nameKey (だんご as "た んこ", ｶﾞ as "カ ") come out keyed by core's nameKey, more titles
 * than one batch holds, their listing rows with them; a work_key an operator's rename left behind stays. And the
 * migration's frozen copy of nameKey is core's nameKey on the fold table, so the two cannot drift apart unseen.
 */
import { authorSortKey, nameKey, titleSortKey, workKey } from '@lectern/core';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLD_TABLE } from '../../../core/test/fold-table.ts';
import { nameKey as frozenNameKey, oldNameKey, oldWorkKey, up } from '../../src/db/migrations/0050_name_keys.ts';
import { rebuildAllListings } from '../../src/repositories/listings.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { bareTitleRow } from '../helpers/rows.ts';

// core's rules before 0050 (the migration's own copy), to write rows as a library keyed by them holds them
const oldTitleSortKey = (title: string) => oldWorkKey(title, []).slice(0, -1);

describe('the frozen nameKey of migration 0050', () => {
  it.each(FOLD_TABLE)('keys %j as core does (%j folded, %j keyed)', (text, _folded, key) => {
    expect(nameKey(text)).toBe(key);
    expect(frozenNameKey(text)).toBe(key);
  });
});

describe.each(ENGINES)('migration 0050 on keys made by the old fold, on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('keys titles, authors, topics, publishers and listings again with the one fold, batch after batch', async () => {
    const db = t.lectern.db.kysely;
    const row = (i: number, title: string, work_key: string) =>
      bareTitleRow(`b${i}`, {
        title,
        content_format: 'book',
        source: 'application/epub+zip',
        file_sha256: `b${i}`,
        created_at: '2026-01-01T00:00:00Z',
        sort_title: oldTitleSortKey(title),
        sort_author: oldNameKey(authorOf(i)),
        work_key,
      });

    // more titles than one batch (500): every one of them keyed the old way, the kana and ligature ones wrongly
    const N = 1100;
    const titleOf = (i: number) => (i % 3 === 0 ? `だんご ${i}` : i % 3 === 1 ? `The ﬁrst ｶﾞﾗｽ ${i}` : `Moby-Dick ${i}`);
    const authorOf = (i: number) => (i % 2 === 0 ? 'ﾊﾟﾝ Café' : 'Ada Lovelace');
    // the last title an operator renamed: its work key is still the imported title's
    const renamed = N - 1;
    const importedKey = oldWorkKey('ばら', [authorOf(renamed)]);
    const ids: number[] = [];
    for (let from = 0; from < N; from += 200) {
      const chunk = Array.from({ length: Math.min(200, N - from) }, (_, j) => from + j);
      const inserted = await db
        .insertInto('titles')
        .values(chunk.map((i) => row(i, titleOf(i), i === renamed ? importedKey : oldWorkKey(titleOf(i), [authorOf(i)]))))
        .returning('id')
        .execute();
      ids.push(...inserted.map((r) => r.id));
      await db
        .insertInto('title_authors')
        .values(chunk.flatMap((i, j) => [
          { title_id: inserted[j]!.id, position: 0, name: authorOf(i), name_key: oldNameKey(authorOf(i)) },
          { title_id: inserted[j]!.id, position: 1, name: 'ﬁona だいち', name_key: oldNameKey('ﬁona だいち') },
        ]))
        .execute();
    }
    const topic = await db.insertInto('topics').values({ slug: 'gundam', name: 'ｶﾞﾝﾀﾞﾑ', name_key: oldNameKey('ｶﾞﾝﾀﾞﾑ') }).returning('id').executeTakeFirstOrThrow();
    const publisher = await db.insertInto('publishers').values({ slug: 'pan', name: 'Éditions ﾊﾟﾝ', name_key: oldNameKey('Éditions ﾊﾟﾝ') }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('title_topics').values({ title_id: ids[0]!, topic_id: topic.id }).execute();
    await db.insertInto('title_publishers').values({ title_id: ids[0]!, publisher_id: publisher.id, position: 0 }).execute();
    await rebuildAllListings(db);
    // the old keys, as the migration finds them
    expect((await db.selectFrom('titles').select('sort_title').where('id', '=', ids[0]!).executeTakeFirstOrThrow()).sort_title).toBe('た んこ 0');
    expect((await db.selectFrom('topics').select('name_key').where('id', '=', topic.id).executeTakeFirstOrThrow()).name_key).toBe('カ ンタ ム');

    await up(db as unknown as Kysely<unknown>);

    const titles = await db.selectFrom('titles').select(['id', 'title', 'sort_title', 'sort_author', 'work_key']).orderBy('id').execute();
    expect(titles).toHaveLength(N);
    for (const [i, r] of titles.entries()) {
      const expected = { sort_title: titleSortKey(titleOf(i)), sort_author: authorSortKey([authorOf(i)]), work_key: i === renamed ? importedKey : workKey(titleOf(i), [authorOf(i)]) };
      expect({ sort_title: r.sort_title, sort_author: r.sort_author, work_key: r.work_key }).toEqual(expected);
    }
    expect(titles[0]!.sort_title).toBe('だんご 0');
    expect(titles[1]!).toMatchObject({ sort_title: 'first ガラス 1', sort_author: 'ada lovelace' });
    expect(titles[2]!).toMatchObject({ sort_title: 'moby dick 2', sort_author: 'パン cafe' });

    const authors = await db.selectFrom('title_authors').select(['name', 'name_key']).distinct().orderBy('name').execute();
    expect(authors).toEqual([
      { name: 'Ada Lovelace', name_key: 'ada lovelace' },
      { name: 'ﬁona だいち', name_key: 'fiona だいち' },
      { name: 'ﾊﾟﾝ Café', name_key: 'パン cafe' },
    ]);
    expect((await db.selectFrom('topics').select('name_key').where('id', '=', topic.id).executeTakeFirstOrThrow()).name_key).toBe('ガンダム');
    expect((await db.selectFrom('publishers').select('name_key').where('id', '=', publisher.id).executeTakeFirstOrThrow()).name_key).toBe('editions パン');

    // every listing row carries its title's new keys (the whole catalog, the topic's, the publisher's, the format's)
    const stale = await db
      .selectFrom('title_listings as l')
      .innerJoin('titles as t', 't.id', 'l.title_id')
      .select(['l.listing', 'l.title_id'])
      .where((eb) => eb.or([eb('l.sort_title', '<>', eb.ref('t.sort_title')), eb('l.sort_author', '<>', eb.ref('t.sort_author'))]))
      .execute();
    expect(stale).toEqual([]);
    const listed = await db.selectFrom('title_listings').select(['listing', 'sort_title']).where('title_id', '=', ids[0]!).orderBy('listing').execute();
    expect(listed.map((l) => l.listing)).toEqual(['all', 'f:book', `p:${publisher.id}`, `p:${publisher.id}|f:book`, `t:${topic.id}`, `t:${topic.id}|f:book`]);
    expect(new Set(listed.map((l) => l.sort_title))).toEqual(new Set(['だんご 0']));

    // what a reader types is found by the new keys: the suggestions look them up by their beginning
    const anon = new TestClient(t.lectern.app);
    const labels = async (q: string) => ((await anon.get(`/api/v2/search/suggest/?q=${encodeURIComponent(q)}`)).json().suggestions as { label: string }[]).map((s) => s.label);
    expect(await labels('だんご 0')).toContain('だんご 0');
    expect(await labels('ｶﾞﾝﾀﾞ')).toContain('ｶﾞﾝﾀﾞﾑ');
    expect(await labels('パン')).toContain('ﾊﾟﾝ Café');

    // run again (SQLite runs it statement by statement: cut off after the titles, the listings were left behind), it
    // mends the listing rows and changes nothing else
    await db.updateTable('title_listings').set({ sort_title: 'た んこ 0' }).where('title_id', '=', ids[0]!).execute();
    await up(db as unknown as Kysely<unknown>);
    expect(await db.selectFrom('titles').select(['id', 'title', 'sort_title', 'sort_author', 'work_key']).orderBy('id').execute()).toEqual(titles);
    expect(await db.selectFrom('title_listings').select(['listing', 'sort_title']).where('title_id', '=', ids[0]!).orderBy('listing').execute()).toEqual(listed);
  });
});
