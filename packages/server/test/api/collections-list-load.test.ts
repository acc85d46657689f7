import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionsRepository } from '../../src/repositories/collections.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

/** Many readers asking at once for one list that is not cached: it is built once, and all get the same answer. */
describe.each(ENGINES)('the playlist list under concurrent requests on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let builds = 0;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada] = await signedInSubscribers(t.lectern, ['ada@example.com']);
    // Count the list's builds on the real repository: each build reads the user's playlists once.
    const repo = (t.lectern.services.collections as unknown as { collections: CollectionsRepository }).collections;
    const listForUser = repo.listForUser.bind(repo);
    repo.listForUser = (userId) => {
      builds++;
      return listForUser(userId);
    };
    const chapters = (await ada.get((await ada.get('/api/v1/book/')).json().results[0].api_url)).json().chapters.map((c: { url: string }) => c.url);
    for (let i = 0; i < 5; i++) {
      const playlist = (await ada.post('/api/v2/collections/', { name: `List ${i}` })).json();
      await ada.post(`/api/v2/collections/${playlist.id}/add-content/`, { content: chapters.slice(0, 20) });
    }
  });
  afterAll(() => t.close());

  it('builds a changed list once for 50 requests at the same time, and each gets the same list and ETag', async () => {
    await ada.get('/api/v2/collections/');
    // A change: the cached list is no longer current.
    const extra = (await ada.post('/api/v2/collections/', { name: 'One more' })).json();
    builds = 0;
    const answers = await Promise.all(Array.from({ length: 50 }, () => ada.get('/api/v2/collections/')));
    expect(builds).toBe(1);
    expect(new Set(answers.map((a) => a.statusCode))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    expect(answers[0]!.json().map((c: { id: string }) => c.id)).toContain(extra.id);
    // The built list is kept: the next request builds nothing.
    await ada.get('/api/v2/collections/');
    expect(builds).toBe(1);
  });
});
