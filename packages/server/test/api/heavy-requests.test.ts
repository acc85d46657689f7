/**
 * Heavy requests take turns (docs/decisions.md "Heavy requests take turns"): the searches wait for a turn of the
 * gate, in order, while cheap requests go past them; a search that finds the queue full is refused at once with a
 * 503 and Retry-After, and changes nothing. The gate's one turn is taken by the test itself, standing for a search
 * at work, so what waits and what passes is seen without timing anything.
 */
import { APP_MESSAGES, catalogSearchResponseSchema, searchPaths } from '@lectern/core';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

describe.each(ENGINES)('heavy requests under load on %s', (engine) => {
  let t: TestApp;
  let reader: TestClient;

  beforeAll(async () => {
    t = await startTestApp(engine, { heavyRequests: { concurrency: 1, listingConcurrency: 1, maxWaiting: 1 } });
    const report = await importSamples(t.lectern);
    expect(report.failed).toEqual([]);
    [reader] = await signedInSubscribers(t.lectern, ['heavy@example.com']);
  });
  afterAll(() => t.close());

  it('a search waits for its turn while cheap requests answer; past the queue a search is a 503 with Retry-After', async () => {
    const gate = t.lectern.services.heavyRequests;
    const book = (await reader.get('/api/v1/book/')).json().results[0].identifier as string;
    await gate.enter(); // a search at work holds the only turn
    let answered: LightMyRequestResponse | null = null;
    const waiting = reader.get(`${searchPaths.catalog()}?q=alice`).then((res) => (answered = res));
    await vi.waitFor(() => expect(gate.load).toEqual({ active: 1, waiting: 1 }));

    // cheap requests do not wait behind it
    expect((await reader.get('/healthz')).statusCode).toBe(200);
    expect((await reader.get('/api/v1/book/?page_size=24')).statusCode).toBe(200);
    expect((await reader.get(`${searchPaths.suggest()}?q=ali`)).statusCode).toBe(200);
    expect(answered).toBeNull();

    // the queue holds one: the next searches are refused at once, in the server's words
    for (const url of [`${searchPaths.catalog()}?q=whales`, `${searchPaths.inBook()}?query=rabbit&identifier=${book}&page=1`]) {
      const refused = await reader.get(url);
      expect(refused.statusCode, url).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toEqual({ detail: APP_MESSAGES.busy });
    }
    expect(gate.load).toEqual({ active: 1, waiting: 1 });

    // the turn passes on: the waiting search answers in full
    gate.leave();
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    expect(catalogSearchResponseSchema.parse(res.json()).results[0]!.metadata.title).toMatch(/^Alice's Adventures/);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
    // and the next one is served at once
    expect((await reader.get(`${searchPaths.catalog()}?q=whales`)).statusCode).toBe(200);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('listings, the home and suggestions take turns of their own: they wait while /healthz and a search answer', async () => {
    const listing = t.lectern.services.listingRequests;
    await listing.enter(); // a listing at work holds the only turn
    const answers: string[] = [];
    const waiting = reader.get('/api/v1/book/?page_size=24').then((res) => (answers.push('catalog'), res));
    await vi.waitFor(() => expect(listing.load).toEqual({ active: 1, waiting: 1 }));

    expect((await reader.get('/healthz')).statusCode).toBe(200);
    expect((await reader.get(`${searchPaths.catalog()}?q=alice`)).statusCode).toBe(200);
    expect(answers).toEqual([]);
    // the queue holds one: the home, the topic list and suggestions are refused while it is full
    for (const url of ['/api/v2/home/', '/api/v1/topics/', `${searchPaths.suggest()}?q=ali`]) {
      const refused = await reader.get(url);
      expect(refused.statusCode, url).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toEqual({ detail: APP_MESSAGES.busy });
    }

    listing.leave();
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    expect(res.json().results.length).toBeGreaterThan(0);
    expect(listing.load).toEqual({ active: 0, waiting: 0 });
    for (const url of ['/api/v2/home/', '/api/v1/topics/', `${searchPaths.suggest()}?q=ali`]) expect((await reader.get(url)).statusCode, url).toBe(200);
  });
});
