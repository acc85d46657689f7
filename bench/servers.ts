/**
 * The benchmark's Lectern, in its own process so that the load generator does not share its event loop: Lectern on
 * SQLite with the sample library, silent. The anchor is another process (bench/anchor.ts); this one writes the
 * answers it is to send (Lectern's exact bytes and headers) to a file. Prints one JSON line (BenchInfo) with the
 * port, a signed-in cookie, the chapter to fetch and the cold readers' requests, then serves until killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../packages/server/src/app.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { importSampleLibrary } from '../packages/server/src/first-start.ts';
import { annotationPaths } from '@lectern/core';
import { type AnchorAnswer, type AnchorAnswers, blockKey, fillIn, recordedBlockRequest } from './replay.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-'));
process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));

const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, sampleCacheDir: path.join(os.tmpdir(), 'lectern-sample-cache') });
const lectern = await buildApp(config);
// Lectern's own floor: a bench-only route on the app that sends the chapter answer without any work, so every
// request hook runs and no route code does (filled in below, once the chapter is known).
const pipelineFloor: { headers: Record<string, string>; body: Buffer } = { headers: {}, body: Buffer.alloc(0) };
lectern.app.get('/bench-floor', async (_request, reply) => reply.headers(pipelineFloor.headers).send(pipelineFloor.body));
// The library the benchmark reads; its import also warms the sample cache, so the timed import below is local.
const report = await importSampleLibrary(lectern.services, config, { cacheDir: config.sampleCacheDir });
if (report.failed.length) throw new Error(`sample import failed: ${JSON.stringify(report.failed)}`);

/** A subscriber signed in like the web app: the anonymous CSRF token from a GET, sent back with the credentials. */
async function signedInReader(email: string) {
  await lectern.services.accounts.createUser({ email, password: 'benchmark password', status: 'subscriber' });
  const first = await lectern.app.inject({ method: 'GET', url: '/healthz' });
  const csrf = first.cookies.find((c) => c.name === 'csrftoken')!.value;
  const login = await lectern.app.inject({
    method: 'POST',
    url: '/login/',
    payload: { email, password: 'benchmark password' },
    headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf },
  });
  if (login.statusCode !== 200) throw new Error(`bench sign-in failed: ${login.body}`);
  return { cookie: login.cookies.map((c) => `${c.name}=${c.value}`).join('; '), csrfToken: login.cookies.find((c) => c.name === 'csrftoken')!.value };
}
const benchReader = await signedInReader('bench@example.com');
const { cookie } = benchReader;

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
const { csrfToken } = benchReader;

/** Lectern's answer to a request, as the anchor is to send it: the same bytes and headers, less the per-connection ones. */
async function answerOf(request: InjectOptions): Promise<AnchorAnswer & { status: number }> {
  const answer = await lectern.app.inject(request);
  const headers = Object.fromEntries(
    Object.entries(answer.headers).filter(([k]) => !['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)),
  ) as Record<string, string>;
  return { status: answer.statusCode, headers, body: answer.rawPayload.toString('base64') };
}
const recorded = recordedBlockRequest();
const blockAnswers: Record<string, AnchorAnswer> = {};
/** The reader's block request (as Chromium sent it) for this reader and chapter; its answer goes to the anchor too. */
async function blockRequest(reader: { cookie: string; csrfToken: string }, bookId: string, href: string) {
  const request = fillIn(recorded, reader, bookId, href);
  const answer = await answerOf({ method: request.method as 'POST', url: request.path, headers: request.headers, payload: request.body });
  if (answer.status !== 200) throw new Error(`bench block request failed: ${Buffer.from(answer.body, 'base64').toString()}`);
  blockAnswers[blockKey(request.headers.cookie, JSON.parse(request.body))] = { headers: answer.headers, body: answer.body };
  return { ...request, bytes: Buffer.from(answer.body, 'base64').length, encoding: answer.headers['content-encoding'] ?? 'identity' };
}

// The reader's block request for the same chapter (encrypted for the signed-in reader).
const [, blockBookId, blockHref] = /^\/api\/v1\/book\/([^/]+)\/chapter\/(.+)$/.exec(chapter.url)!;
const block = await blockRequest(benchReader, blockBookId!, decodeURIComponent(blockHref!));

// The cold case: a library's readers, each request another reader and another chapter (so nothing made for one
// reader's chapter can serve the next request). Readers keep their sessions, as readers in the middle of a book do.
const COLD_READERS = 40;
const COLD_REQUESTS = 1200;
const coldReaders = [];
for (let i = 0; i < COLD_READERS; i++) coldReaders.push(await signedInReader(`cold-${i}@example.com`));
const textChapters: { bookId: string; href: string }[] = [];
for (const book of list.results) {
  const d = (await lectern.app.inject({ method: 'GET', url: book.api_url })).json() as { book_id: string; chapters: { full_path: string; media_type?: string }[] };
  for (const c of d.chapters ?? []) if (!/\.pdf$/i.test(c.full_path)) textChapters.push({ bookId: d.book_id, href: c.full_path });
}
const cold = [];
for (let i = 0; i < COLD_REQUESTS; i++) {
  // Reader i mod R, chapter (i * 7) mod C: consecutive requests differ in both; pairs repeat only past R x C.
  const reader = coldReaders[i % COLD_READERS]!;
  const c = textChapters[(i * 7) % textChapters.length]!;
  const r = await blockRequest(reader, c.bookId, c.href);
  cold.push({ headers: r.headers, body: r.body, bytes: r.bytes });
}

// A chapter holding 1,000 annotations (bench/annotations.ts): the bench user's highlights and notes on the median
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
const chapterAnswer = await answerOf({ method: 'GET', url: chapter.url, headers: { cookie } });
Object.assign(pipelineFloor, { headers: chapterAnswer.headers, body: Buffer.from(chapterAnswer.body, 'base64') });
const anchorAnswers: AnchorAnswers = { chapter: { headers: chapterAnswer.headers, body: chapterAnswer.body }, block: blockAnswers };
const anchorAnswersFile = path.join(dataDir, 'anchor-answers.json');
fs.writeFileSync(anchorAnswersFile, JSON.stringify(anchorAnswers));

await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const portOf = (a: ReturnType<typeof lectern.app.server.address>) => (typeof a === 'object' && a ? a.port : 0);
export interface BenchInfo {
  appPort: number;
  /** what bench/anchor.ts is to send (--answers): Lectern's answers, byte for byte */
  anchorAnswersFile: string;
  cookie: string;
  chapterUrl: string;
  chapterBytes: number;
  /** the reader's block request (bench/reader-requests.json) for the bench reader and the median chapter */
  block: { method: string; path: string; headers: Record<string, string>; body: string; bytes: number; encoding: string };
  /** the cold case: each request another reader and another chapter */
  cold: { headers: Record<string, string>; body: string; bytes: number }[];
  coldReaders: number;
  coldChapters: number;
  etag: string;
  csrfToken: string;
  metadataUrls: string[];
  annotationToken: string;
  annotationSearchUrl: string;
}
const info: BenchInfo = {
  appPort: portOf(lectern.app.server.address()),
  anchorAnswersFile,
  cookie,
  chapterUrl: chapter.url,
  etag,
  csrfToken,
  metadataUrls: chapterUrls.slice(0, 50),
  chapterBytes: chapter.size,
  block,
  cold,
  coldReaders: COLD_READERS,
  coldChapters: textChapters.length,
  annotationToken,
  annotationSearchUrl: `${annotationPaths.search(annotationPrefix)}?limit=1000`,
};
console.log(JSON.stringify(info));
