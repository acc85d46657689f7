/**
 * Where the reader's start spends the main thread: V8 CPU profiles of the reader's page loaded in Chromium with its
 * CPU slowed 4x (as Lighthouse's mobile preset simulates), a signed-in reader opening Moby-Dick's median chapter (the
 * chapter bench/lighthouse.ts audits) on a fresh server, at a phone's 412x823. Each run is a new page; the profile runs
 * from navigation to the chapter painted and the network quiet, plus 2.5 s for what the page does then. Prints each
 * run's reader marks and the busy stretches of its profile over MIN ms (bench/profile-tasks.ts), and keeps the
 * profiles (OUT-{run}.cpuprofile) for bench/cpu-top.ts or DevTools.
 *
 *   npm run build && npx tsx bench/reader-start-profile.ts
 *   DIST=dir (a build, default packages/web/dist)  RUNS=3  CPU=4  PORT=5310  OUT=/tmp/reader-start  MIN=30
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFreshServer, CHROMIUM_LAUNCH, signIn } from '../scripts/fresh-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.resolve(process.env.DIST ?? path.join(root, 'packages/web/dist'));
const runs = Number(process.env.RUNS ?? 3);
const out = process.env.OUT ?? '/tmp/reader-start';
const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-reader-start-', timeoutMs: 170_000, port: Number(process.env.PORT ?? 0) || undefined, env: { WEB_DIST: dist } });
const browser = await chromium.launch(CHROMIUM_LAUNCH);
try {
  const context = await browser.newContext({ baseURL: fresh.base, viewport: { width: 412, height: 823 } });
  const setup = await context.newPage();
  await signIn(setup, fresh.email, fresh.password);
  const books = (await (await setup.request.get('/api/v1/book/?page_size=100')).json()).results as { api_url: string; title: string; content_format: string }[];
  const moby = books.find((b) => /Moby/i.test(b.title) && b.content_format === 'book');
  if (!moby) throw new Error('Moby-Dick is not in the sample library');
  const chapters = ((await (await setup.request.get(moby.api_url)).json()) as { chapters: { web_url: string }[] }).chapters;
  const readerPath = new URL(chapters[Math.floor(chapters.length / 2)]!.web_url, fresh.base).pathname;
  for (let run = 0; run < runs; run++) {
    const page = await context.newPage();
    page.on('pageerror', (e) => console.log(`run ${run}: page error ${e.message}`));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(process.env.CPU ?? 4) });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await page.goto(readerPath, { waitUntil: 'load' });
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(2500);
    const { profile } = await cdp.send('Profiler.stop');
    const marks = await page.evaluate(() =>
      [...performance.getEntriesByType('paint'), ...performance.getEntriesByType('mark')].map((m) => `${m.name}@${Math.round(m.startTime)}`).join(' '),
    );
    const file = `${out}-${run}.cpuprofile`;
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`run ${run} (${file}): ${marks}`);
    console.log(execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/profile-tasks.ts'), file, process.env.MIN ?? '30'], { encoding: 'utf8' }));
    await page.close();
  }
} finally {
  await browser.close();
  await fresh.stop();
}
