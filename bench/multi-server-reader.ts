/**
 * The multi-server scenario's simulated readers (bench/multi-server.ts), a process of their own (forked with IPC) so
 * that 200 readers are not one event loop: the parent sends a job, this process runs it for each of its readers at
 * once and answers with what it saw. Every call goes through the proxy, as a browser's would.
 * - `signIn`: each reader signs in as the web app does (the anonymous CSRF token from a GET, then POST /login/).
 * - `run` with `mix: 'reads'`: the reader's recorded block request (bench/reader-requests.json), chapter after chapter.
 * - `run` with `mix: 'mixed'`: reads, usage events, playlist edits and notes; every write answered 2xx is kept as an
 *   acknowledged write for the parent to look up in the database afterwards.
 * - `check`: each reader's session still answers a signed-in call.
 */
import { randomUUID } from 'node:crypto';
import { annotationPaths, paths } from '@lectern/core';
import { fillIn, recordedBlockRequest } from './replay.ts';
import { mulberry32 } from '../packages/server/test/fixtures/prng.ts';

export interface ReaderAccount {
  email: string;
  password: string;
}
export interface Chapter {
  bookId: string;
  titleSafe: string;
  href: string;
}
export type ReaderJob =
  | { kind: 'signIn'; base: string; readers: ReaderAccount[] }
  | { kind: 'run'; base: string; mix: 'reads' | 'mixed'; seconds: number; chapters: Chapter[]; seed: number }
  | { kind: 'check'; base: string };

/** A write the server answered 2xx, to be found in the database afterwards. */
export type Ack =
  | { kind: 'usage'; email: string; usageUuid: string }
  | { kind: 'playlist'; email: string; id: string }
  | { kind: 'playlistItem'; email: string; id: string; url: string }
  | { kind: 'note'; email: string; id: string };

export interface CallStats {
  /** answered 2xx/304 */
  ok: number;
  /** latency of each answered call, ms */
  latencies: number[];
  /** failures: when (epoch ms) and what (status code, or the network error's code) */
  failures: { at: number; status: string }[];
}
export interface RunResult {
  calls: Record<string, CallStats>;
  acks: Ack[];
  startedAt: number;
  endedAt: number;
}

interface Reader extends ReaderAccount {
  cookies: Map<string, string>;
  token?: string;
  playlist?: string;
  added: Set<string>;
}

const readers: Reader[] = [];
const SIGN_IN_AT_ONCE = 5;
/** mixed load: a reader's pause between two calls (reading the page), 0.5-1.5 s; reads alone have none */
const THINK_MS = [500, 1500] as const;

function cookieHeader(r: Reader) {
  return [...r.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** One call through the proxy with the reader's cookies (and CSRF header on unsafe methods), its cookies kept. */
async function call(base: string, r: Reader, method: string, url: string, body?: string | FormData, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { ...headers };
  if (r.cookies.size) h.cookie = cookieHeader(r);
  if (method !== 'GET' && r.cookies.has('csrftoken')) h['x-csrftoken'] ??= r.cookies.get('csrftoken')!;
  if (typeof body === 'string') h['content-type'] ??= 'application/json';
  const res = await fetch(base + url, { method, headers: h, body, signal: AbortSignal.timeout(60_000) });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    if (value === '' || /max-age=0/i.test(c)) r.cookies.delete(name);
    else r.cookies.set(name, value);
  }
  return res;
}

async function signIn(base: string, accounts: ReaderAccount[]) {
  readers.length = 0;
  const failed: string[] = [];
  // Readers arrive a few at a time (SIGN_IN_AT_ONCE per process), not all in one millisecond; one answered 503
  // (a server busy or out of the proxy's rotation) tries again after a moment, as a person would, up to 5 times.
  const queue = [...accounts];
  const signInOne = async (a: ReaderAccount) => {
    const r: Reader = { ...a, cookies: new Map(), added: new Set() };
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 200; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      try {
        await (await call(base, r, 'GET', '/healthz')).arrayBuffer();
        const login = await call(base, r, 'POST', '/login/', JSON.stringify({ email: a.email, password: a.password }));
        await login.arrayBuffer();
        status = login.status;
      } catch {
        status = 0;
      }
    }
    if (status !== 200) failed.push(`${a.email}: ${status}`);
    const token = await call(base, r, 'GET', annotationPaths.token()).catch(() => null);
    if (token?.status === 200) r.token = await token.text();
    readers.push(r);
  };
  await Promise.all(
    Array.from({ length: SIGN_IN_AT_ONCE }, async () => {
      for (let a = queue.shift(); a; a = queue.shift()) await signInOne(a);
    }),
  );
  return { signedIn: readers.length - failed.length, failed };
}

async function run(job: Extract<ReaderJob, { kind: 'run' }>): Promise<RunResult> {
  const calls: Record<string, CallStats> = {};
  const acks: Ack[] = [];
  const recorded = recordedBlockRequest();
  const startedAt = Date.now();
  const end = startedAt + job.seconds * 1000;
  /** Times one call; `ok` says whether the answer is a success (and records the acknowledged write). */
  const timed = async (name: string, work: () => Promise<Response>, onOk?: (res: Response) => Promise<void>) => {
    const stats = (calls[name] ??= { ok: 0, latencies: [], failures: [] });
    const t0 = performance.now();
    try {
      const res = await work();
      if (res.status >= 200 && res.status < 400) {
        if (onOk) await onOk(res);
        else await res.arrayBuffer();
        stats.ok++;
        stats.latencies.push(performance.now() - t0);
      } else {
        await res.arrayBuffer().catch(() => {});
        stats.failures.push({ at: Date.now(), status: String(res.status) });
      }
    } catch (err) {
      stats.failures.push({ at: Date.now(), status: failureOf(err) });
    }
  };

  await Promise.all(
    readers.map(async (r, i) => {
      const next = mulberry32(job.seed * 1000 + i);
      const pick = () => job.chapters[Math.floor(next() * job.chapters.length)]!;
      while (Date.now() < end) {
        if (job.mix === 'mixed') await new Promise((resolve) => setTimeout(resolve, THINK_MS[0] + next() * (THINK_MS[1] - THINK_MS[0])));
        const c = pick();
        const roll = job.mix === 'reads' ? 0 : next();
        if (roll < 0.6) {
          const req = fillIn(recorded, { cookie: cookieHeader(r), csrfToken: r.cookies.get('csrftoken') ?? '' }, c.bookId, c.href);
          await timed('read chapter (POST /nest/epub/block/)', () => fetch(job.base + req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(60_000) }));
        } else if (roll < 0.8) {
          const usageUuid = randomUUID();
          const start = Math.floor(next() * 90);
          const event = { chapter: paths.chapterApi(c.bookId, c.href), start_percentage: start, end_percentage: start + 5, client_timestamp: Date.now(), usage_uuid: usageUuid };
          await timed('usage event (POST /api/v1/usage-event/)', () => call(job.base, r, 'POST', '/api/v1/usage-event/', JSON.stringify({ events: [event] })), async (res) => {
            const body = (await res.json()) as { accepted: string[] };
            if (body.accepted.includes(usageUuid)) acks.push({ kind: 'usage', email: r.email, usageUuid });
          });
        } else if (roll < 0.9) {
          if (!r.playlist) {
            await timed('playlist create (POST /api/v2/collections/)', () => call(job.base, r, 'POST', '/api/v2/collections/', JSON.stringify({ name: `Multi-server ${randomUUID().slice(0, 8)}` })), async (res) => {
              const body = (await res.json()) as { id: string };
              r.playlist = body.id;
              acks.push({ kind: 'playlist', email: r.email, id: body.id });
            });
          } else {
            const url = paths.chapterApi(c.bookId, c.href);
            if (r.added.has(url)) continue;
            const id = r.playlist;
            await timed('playlist add (POST /api/v2/collections/{id}/add-content/)', () => call(job.base, r, 'POST', `/api/v2/collections/${id}/add-content/`, JSON.stringify({ content: [url] })), async (res) => {
              await res.arrayBuffer();
              r.added.add(url);
              acks.push({ kind: 'playlistItem', email: r.email, id, url });
            });
          }
        } else if (r.token) {
          const prefix = annotationPaths.prefix(c.titleSafe, c.bookId, c.href);
          const quote = `A passage noted during the multi-server run ${randomUUID().slice(0, 8)}`;
          const note = {
            quote,
            text: 'A note written behind the proxy',
            tags: '',
            ranges: [{ start: '/p[1]', startOffset: 0, end: '/p[1]', endOffset: 10 }],
            selectors: [{ type: 'TextQuoteSelector', exact: quote, prefix: '', suffix: '' }],
            fragment: `<p>${quote}</p>`,
          };
          await timed('note (POST /nest/api/a/…/annotations/)', () => call(job.base, r, 'POST', annotationPaths.annotations(prefix), JSON.stringify(note), { 'x-annotator-auth-token': r.token! }), async (res) => {
            const body = (await res.json()) as { id: string };
            acks.push({ kind: 'note', email: r.email, id: body.id });
          });
        }
      }
    }),
  );
  return { calls, acks, startedAt, endedAt: Date.now() };
}

/** What a call that got no answer met: the socket's error code, or 'timeout' (AbortSignal.timeout). */
function failureOf(err: unknown): string {
  const e = err as { cause?: { code?: string }; name?: string; code?: string };
  return e.cause?.code ?? (e.name === 'TimeoutError' ? 'timeout' : (e.code ?? e.name ?? 'error'));
}

/**
 * Each reader's session still works: a signed-in call answers 200. The server's answer decides; a call that got no
 * answer at all (a kept-alive socket the proxy had just closed) is made again, up to 3 times.
 */
async function check(base: string) {
  const dead: string[] = [];
  await Promise.all(
    readers.map(async (r) => {
      let outcome = 'no answer';
      for (let attempt = 0; attempt < 3 && outcome !== '200' && !/^\d/.test(outcome); attempt++) {
        try {
          const res = await call(base, r, 'GET', '/api/v2/collections/?content=none');
          await res.arrayBuffer();
          outcome = String(res.status);
        } catch (err) {
          outcome = `no answer (${failureOf(err)})`;
        }
      }
      if (outcome !== '200') dead.push(`${r.email}: ${outcome}`);
    }),
  );
  return { alive: readers.length - dead.length, dead };
}

process.on('message', (job: ReaderJob) => {
  void (async () => {
    try {
      if (job.kind === 'signIn') process.send!(await signIn(job.base, job.readers));
      else if (job.kind === 'run') process.send!(await run(job));
      else process.send!(await check(job.base));
    } catch (err) {
      process.send!({ error: String((err as Error).stack ?? err) });
    }
  })();
});
process.send!({ ready: true });
