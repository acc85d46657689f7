/**
 * Where the long chapter's first screen waits: a Chromium performance trace (the DevTools timeline's categories) of
 * the reader opening bench/long-chapter.ts's 800,000-character chapter at 1280x800, CPU not slowed, each run in a new
 * context. Prints, per run, the reader's marks and every main-thread task of at least MIN ms up to the first screen
 * with what it spent its time on (script evaluated by file, functions called, parse, style, layout, GC), and the
 * worker thread's tasks; keeps the traces (OUT-{run}.json) for DevTools' Performance panel.
 *
 *   npm run build && npx tsx bench/long-chapter-trace.ts
 *   DIST=dir (a build, default packages/web/dist)  RUNS=3  OUT=/tmp/long-chapter-trace  MIN=4  PORT=0
 *   UNTIL=chapter-painted: trace until the whole chapter is in (the reader's mark), not only its first screen
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.resolve(process.env.DIST ?? path.join(root, 'packages/web/dist'));
const runs = Number(process.env.RUNS ?? 3);
const out = process.env.OUT ?? '/tmp/long-chapter-trace';
const min = Number(process.env.MIN ?? 4);
const until = `reader:${process.env.UNTIL ?? 'first-screen'}`;
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8.execute', 'loading', 'toplevel', 'v8'];

interface Ev {
  name: string;
  ph: string;
  ts: number;
  cat?: string;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: Record<string, unknown>; name?: string } & Record<string, unknown>;
}

/** What a task spent its time on: its direct and nested events, labelled, by self time (ms). */
function describe(task: Ev, inside: Ev[]): string {
  const label = (e: Ev) => {
    const d = e.args?.data ?? {};
    const file = (u: unknown) => String(u ?? '').replace(/^.*\//, '').replace(/-[\w-]{8}\.js/, '.js');
    switch (e.name) {
      case 'EvaluateScript':
        return `eval ${file(d.url)}`;
      case 'v8.evaluateModule':
        return `module`;
      case 'FunctionCall':
        return `call ${String(d.functionName || '?')} ${file(d.url)}:${String(d.lineNumber ?? '')}`;
      case 'EventDispatch':
        return `event ${String(d.type)}`;
      case 'TimerFire':
        return 'timer';
      case 'FireAnimationFrame':
        return 'rAF';
      case 'ParseHTML':
        return 'ParseHTML';
      default:
        return e.name;
    }
  };
  // self time of each event: its duration minus its children's (events nested by time on one thread)
  const evs = inside.filter((e) => e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const self = new Map<string, number>();
  const stack: { e: Ev; kids: number }[] = [];
  const close = (upTo: number) => {
    while (stack.length && stack[stack.length - 1]!.e.ts + stack[stack.length - 1]!.e.dur! <= upTo) {
      const top = stack.pop()!;
      const key = label(top.e);
      self.set(key, (self.get(key) ?? 0) + (top.e.dur! - top.kids) / 1000);
      if (stack.length) stack[stack.length - 1]!.kids += top.e.dur!;
    }
  };
  for (const e of evs) {
    close(e.ts);
    stack.push({ e, kids: 0 });
  }
  close(Infinity);
  void task;
  return [...self]
    .filter(([k]) => k !== 'RunTask' && k !== 'ThreadControllerImpl::RunTask')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .filter(([, v]) => v >= 0.5)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(' | ');
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}
const maps = new Map<string, SourceMapConsumer | null>();
function mapOf(url: string): SourceMapConsumer | null {
  if (!maps.has(url)) {
    const f = path.join(dist, new URL(url).pathname + '.map');
    maps.set(url, fs.existsSync(f) ? new SourceMapConsumer(JSON.parse(fs.readFileSync(f, 'utf8')) as RawSourceMap) : null);
  }
  return maps.get(url)!;
}
/** A frame as its source: file (node_modules package or our path) and, for our code, the function's original name. */
function source(f: Profile['nodes'][number]['callFrame']): { file: string; ours: boolean; name: string } {
  if (!f.url || !/^https?:/.test(f.url)) return { file: f.functionName || f.url || '(native)', ours: false, name: f.functionName };
  const m = mapOf(f.url);
  if (!m) return { file: f.url.replace(/^.*\//, ''), ours: false, name: f.functionName };
  const pos = m.originalPositionFor({ line: f.lineNumber + 1, column: f.columnNumber });
  const src = pos.source ?? '?';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src)?.[1];
  return pkg ? { file: pkg, ours: false, name: f.functionName } : { file: src.replace(/^.*?(packages\/)/, ''), ours: true, name: `${pos.name ?? f.functionName}:${pos.line}` };
}
/** Samples between two trace times: self time by source, and by the innermost frame of our own code on the stack. */
function attribute(profile: Profile, from: number, to: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfBy = new Map<string, number>();
  const oursBy = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let at = profile.startTime;
  let prev = at;
  let total = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const dt = (at - prev) / 1000;
    prev = at;
    if (at < from || at > to) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    total += dt;
    const s = source(node.callFrame);
    selfBy.set(s.file, (selfBy.get(s.file) ?? 0) + dt);
    let ours = '(none of ours)';
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const o = source(byId.get(n)!.callFrame);
      if (o.ours) {
        ours = `${o.file.replace(/^web\/src\//, '')} ${o.name}`;
        break;
      }
    }
    oursBy.set(ours, (oursBy.get(ours) ?? 0) + dt);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const o = source(byId.get(n)!.callFrame);
      const key = o.ours ? `${o.file.replace(/^.*web\/src\//, '')} ${o.name}` : o.file.startsWith('react') || o.file === '@tanstack/query-core' ? o.file : '';
      if (key && !seen.has(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
      }
    }
  });
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ');
  console.log(`   busy ${total.toFixed(0)} ms of ${((to - from) / 1000).toFixed(0)}\n   self by source: ${top(selfBy, 12)}\n   innermost code of ours: ${top(oursBy, 25)}\n   inclusive: ${top(inclusive, 40)}`);
}

const book = longChapterEpub({ chars: 800_000 });
const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-trace-', timeoutMs: 170_000, port: Number(process.env.PORT ?? 0) || undefined, env: { WEB_DIST: dist } });
const file = path.join(fresh.dataDir, 'long-chapter-800k.epub');
fs.writeFileSync(file, book.bytes);
const bookId = /^imported\s+(\S+)/m.exec(importBook(fresh.dataDir, file))?.[1];
if (!bookId) throw new Error('the import printed no book');
const browser = await chromium.launch(CHROMIUM_LAUNCH);
try {
  const setup = await browser.newContext({ baseURL: fresh.base, viewport: { width: 1280, height: 800 } });
  const p = await setup.newPage();
  await signIn(p, fresh.email, fresh.password);
  const detail = (await (await p.request.get(`/api/v1/book/${bookId}/`, { headers: { Accept: 'application/json' } })).json()) as { chapters: { full_path: string; web_url: string }[] };
  const long = detail.chapters.find((c) => c.full_path.endsWith(book.longPath))!;
  const url = new URL(long.web_url, fresh.base).href;
  const state = await setup.storageState();
  await setup.close();
  for (let run = 0; run <= runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, storageState: state });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.goto(url);
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, until, { timeout: 60_000, polling: 50 });
    await page.waitForTimeout(300);
    const buffer = await browser.stopTracing();
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    fs.writeFileSync(`${out}-${run}.cpuprofile`, JSON.stringify(profile));
    await context.close();
    if (run === 0) continue; // warm-up
    const trace = JSON.parse(buffer.toString('utf8')) as { traceEvents: Ev[] };
    fs.writeFileSync(`${out}-${run}.json`, buffer);
    const events = trace.traceEvents;
    // (Chromium 156 leaves the main frame's documentLoaderURL empty: the outermost main frame's navigation is taken then)
    const navData = (e: Ev) => (e.args?.data ?? {}) as { isLoadingMainFrame?: boolean; isOutermostMainFrame?: boolean; documentLoaderURL?: string };
    const navigations = events.filter((e) => e.name === 'navigationStart' && navData(e).isLoadingMainFrame);
    const nav =
      navigations.find((e) => String(navData(e).documentLoaderURL ?? '').includes('/library/view/')) ??
      navigations.find((e) => navData(e).isOutermostMainFrame && !navData(e).documentLoaderURL);
    if (!nav) throw new Error('no navigationStart in the trace');
    const threadName = new Map<string, string>();
    for (const e of events) if (e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, String(e.args?.name));
    const main = `${nav.pid}:${nav.tid}`;
    const at = (ts: number) => ((ts - nav.ts) / 1000).toFixed(0);
    const marks = events.filter((e) => e.pid === nav.pid && e.cat?.toString().includes('blink.user_timing') && e.name.startsWith('reader:')).map((e) => `${e.name.slice(7)}@${at(e.ts)}`);
    const firstScreen = events.find((e) => e.name === 'reader:first-screen' && e.pid === nav.pid);
    // (UNTIL later than the first screen, e.g. positioned: the reader's own first screen's tasks are listed too)
    const untilMark = events.find((e) => e.name === until && e.pid === nav.pid) ?? firstScreen;
    const end = untilMark ? untilMark.ts + 20_000 : Infinity;
    console.log(`\nrun ${run} (${out}-${run}.json): ${[...new Set(marks)].join(' ')}`);
    const markTs = (name: string) => events.find((e) => e.name === `reader:${name}` && e.pid === nav.pid)?.ts;
    const chunksIn = nav.ts + 150_000;
    const asked = markTs('chapter-asked');
    if (asked && untilMark) {
      console.log(' profile, navigation+150 ms to chapter-asked:');
      attribute(profile, chunksIn, asked);
      console.log(` profile, chapter-asked to ${untilMark.name.slice(7)}:`);
      attribute(profile, asked, untilMark.ts);
    }
    for (const [key, name] of threadName) {
      if (key !== main && !(key.startsWith(`${nav.pid}:`) && /Worker/.test(name))) continue;
      const onThread = events.filter((e) => `${e.pid}:${e.tid}` === key && e.ph === 'X' && e.ts >= nav.ts && e.ts < end);
      const tasks = onThread.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask');
      let busy = 0;
      console.log(` ${key === main ? 'main thread' : name}:`);
      for (const t of tasks) {
        const ms = t.dur! / 1000;
        busy += ms;
        if (ms < min) continue;
        const inside = onThread.filter((e) => e !== t && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur!);
        console.log(`  ${at(t.ts).padStart(5)} +${ms.toFixed(0).padStart(3)}  ${describe(t, inside)}`);
      }
      console.log(`  busy ${busy.toFixed(0)} ms in tasks until the first screen`);
    }
  }
} finally {
  await browser.close();
  await fresh.stop();
}
