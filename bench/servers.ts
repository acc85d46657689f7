/**
 * The benchmark's servers, in their own process so that the load generator does not share their event loop:
 * a bare Fastify route (the anchor) and Lectern on SQLite with the sample library, both silent. Prints one JSON
 * line (BenchInfo) with the ports, a signed-in cookie and the chapter to fetch, then serves until killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../packages/server/src/app.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { importSampleLibrary } from '../packages/server/src/first-start.ts';
import { annotationPaths } from '@lectern/core';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-'));
process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));

const anchor = Fastify({ logger: false });
anchor.get('/bare', async () => ({ hello: 'world' }));

const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, sampleCacheDir: path.join(os.tmpdir(), 'lectern-sample-cache') });
const lectern = await buildApp(config);
// Lectern's own floor: a bench-only route on the app that sends the chapter answer without any work, so every
// request hook runs and no route code does (filled in below, once the chapter is known).
const pipelineFloor: { headers: Record<string, string>; body: Buffer } = { headers: {}, body: Buffer.alloc(0) };
lectern.app.get('/bench-floor', async (_request, reply) => reply.headers(pipelineFloor.headers).send(pipelineFloor.body));
// The library the benchmark reads; its import also warms the sample cache, so the timed import below is local.
const report = await importSampleLibrary(lectern.services, config, { cacheDir: config.sampleCacheDir });
if (report.failed.length) throw new Error(`sample import failed: ${JSON.stringify(report.failed)}`);

// Sign in like the web app: take the anonymous CSRF token from a GET, send it back with the credentials.
await lectern.services.accounts.createUser({ email: 'bench@example.com', password: 'benchmark password', status: 'subscriber' });
const first = await lectern.app.inject({ method: 'GET', url: '/healthz' });
const csrf = first.cookies.find((c) => c.name === 'csrftoken')!.value;
const login = await lectern.app.inject({
  method: 'POST',
  url: '/login/',
  payload: { email: 'bench@example.com', password: 'benchmark password' },
  headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf },
});
if (login.statusCode !== 200) throw new Error(`bench sign-in failed: ${login.body}`);
const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');

// The chapter: the median-sized chapter of Moby-Dick, a typical read.
const list = (await lectern.app.inject({ method: 'GET', url: '/api/v1/book/?page_size=100' })).json() as { results: { title: string; api_url: string }[] };
const moby = list.results.find((b) => /Moby/i.test(b.title))!;
const detail = (await lectern.app.inject({ method: 'GET', url: moby.api_url })).json() as { chapters: { url: string }[] };
const sized = await Promise.all(
  detail.chapters.map(async (c) => ({ url: c.url, size: (await lectern.app.inject({ method: 'GET', url: c.url, headers: { cookie } })).body.length })),
);
sized.sort((a, b) => a.size - b.size);
const chapter = sized[Math.floor(sized.length / 2)]!;

// A heavy playlist user: 50 playlists of 100 items each (Moby-Dick's chapters are the items).
const user = (await lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'bench@example.com').executeTakeFirstOrThrow());
const chapterUrls = detail.chapters.map((c) => c.url);
for (let i = 0; i < 50; i++) {
  const playlist = await lectern.services.collections.create(user, { name: `Playlist ${String(i).padStart(2, '0')}`, description: 'Benchmark' });
  await lectern.services.collections.addContent(user, playlist.id, chapterUrls.slice(i % 40, (i % 40) + 100));
}
const etag = await lectern.services.collections.etag(user);
const csrfToken = login.cookies.find((c) => c.name === 'csrftoken')!.value;

// The reader's block request for the same chapter (encrypted for the signed-in reader).
const [, blockBookId, blockHref] = /^\/api\/v1\/book\/([^/]+)\/chapter\/(.+)$/.exec(chapter.url)!;
const block = await lectern.app.inject({
  method: 'POST',
  url: '/nest/epub/block/',
  payload: { book_id: blockBookId, hrefs: [decodeURIComponent(blockHref!)] },
  headers: { cookie, 'x-csrftoken': csrfToken },
});
if (block.statusCode !== 200) throw new Error(`bench block request failed: ${block.body}`);

// A chapter holding 1,000 annotations (issue 9's bench): the bench user's highlights and notes on the median
// chapter, made through the store as a client makes them; the search loads them all in one call.
const annotationToken = (await lectern.app.inject({ method: 'GET', url: '/auth/token', headers: { cookie } })).body;
const bookTitleSafe = (await lectern.services.catalog.requireTitle(blockBookId!)).title_safe;
const annotationPrefix = annotationPaths.prefix(bookTitleSafe, blockBookId!, decodeURIComponent(blockHref!));
for (let i = 0; i < 1000; i++) {
  const quote = `Call me Ishmael. Some years ago, never mind how long precisely, passage ${i}`;
  const made = await lectern.app.inject({
    method: 'POST',
    url: annotationPaths.annotations(annotationPrefix),
    headers: { 'x-annotator-auth-token': annotationToken },
    payload: {
      quote,
      text: i % 3 === 0 ? `A note on passage ${i} with **markdown**` : '',
      tags: i % 5 === 0 ? 'whales sea' : '',
      ranges: [{ start: `/p[${i + 1}]`, startOffset: 0, end: `/p[${i + 1}]`, endOffset: quote.length }],
      selectors: [
        { type: 'TextQuoteSelector', exact: quote, prefix: 'before the passage ', suffix: ' after the passage' },
        { type: 'TextPositionSelector', start: i * 200, end: i * 200 + quote.length },
      ],
      fragment: `<p>${quote}</p>`,
    },
  });
  if (made.statusCode !== 200) throw new Error(`bench annotation failed: ${made.body}`);
}

// The floor for the chapter route: the anchor's server sending the same bytes with the same headers, no work.
const chapterAnswer = await lectern.app.inject({ method: 'GET', url: chapter.url, headers: { cookie } });
const chapterBody = chapterAnswer.rawPayload;
const chapterHeaders = Object.fromEntries(
  Object.entries(chapterAnswer.headers).filter(([k]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(k)),
) as Record<string, string>;
Object.assign(pipelineFloor, { headers: chapterHeaders, body: chapterBody });
anchor.get('/floor', async (_request, reply) => reply.headers(chapterHeaders).send(chapterBody));

await anchor.listen({ port: 0, host: '127.0.0.1' });
await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const portOf = (a: ReturnType<typeof anchor.server.address>) => (typeof a === 'object' && a ? a.port : 0);
export interface BenchInfo {
  anchorPort: number;
  appPort: number;
  cookie: string;
  chapterUrl: string;
  chapterBytes: number;
  blockBookId: string;
  blockHref: string;
  blockBytes: number;
  etag: string;
  csrfToken: string;
  metadataUrls: string[];
  annotationToken: string;
  annotationSearchUrl: string;
}
const info: BenchInfo = {
  anchorPort: portOf(anchor.server.address()),
  appPort: portOf(lectern.app.server.address()),
  cookie,
  chapterUrl: chapter.url,
  etag,
  csrfToken,
  metadataUrls: chapterUrls.slice(0, 50),
  chapterBytes: chapter.size,
  blockBookId: blockBookId!,
  blockHref: decodeURIComponent(blockHref!),
  blockBytes: block.body.length,
  annotationToken,
  annotationSearchUrl: `${annotationPaths.search(annotationPrefix)}?limit=1000`,
};
console.log(JSON.stringify(info));
