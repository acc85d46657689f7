/**
 * The operators' console (docs/decisions.md "The first operator, from the browser"), walked as an operator in Chromium:
 * a fresh DATA_DIR (and for PostgreSQL a fresh database), the real start, its set-up link, the first admin, a real EPUB
 * imported through the Import screen, its title edited, found in the catalog, read by the demo reader in a second
 * browser, the dashboard's 30 days, the audit log. Usage: node --import tsx scripts/operator-walk.ts <sqlite|postgres>
 * <port> <book.epub> (built web app in packages/web/dist or WEB_DIST; PostgreSQL at 127.0.0.1:5432, user postgres).
 * Screenshots and the start's output go to .tmp/walk/<engine>/; it prints each step and the problems seen (5xx answers,
 * page errors). The EPUB should be one the sample library does not hold, e.g. Debian's developers-reference (`apt-get
 * download developers-reference && dpkg -x developers-reference_*.deb x`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH, signIn } from './fresh-server.ts';

const engine = process.argv[2] ?? 'sqlite';
const port = Number(process.argv[3] ?? 5301);
const EPUB = process.argv[4] ?? '';
if (!EPUB) throw new Error('usage: scripts/operator-walk.ts <sqlite|postgres> <port> <book.epub>');
const SHOTS = path.join(import.meta.dirname, '..', '.tmp', 'walk', engine);
fs.mkdirSync(SHOTS, { recursive: true });
const log = (m: string) => console.log(`[walk ${engine}] ${m}`);
const PASSWORD = 'the operator walks the library';
const EMAIL = 'operator@example.com';
const NEW_TITLE = 'The Walked Title';

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `operator-walk-${engine}-`));
  let databaseUrl = '';
  let dbName = '';
  if (engine === 'postgres') {
    dbName = `h3_walk_${Date.now()}`;
    const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await c.connect();
    await c.query(`create database ${dbName}`);
    await c.end();
    databaseUrl = `postgres://postgres@127.0.0.1:5432/${dbName}`;
  }
  const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', SAMPLE_CACHE_DIR: '/tmp/lectern-sample-cache' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const on = (b: Buffer) => {
      output += b.toString();
      if (/\(or on the command line/.test(output)) resolve();
    };
    server.stdout!.on('data', on);
    server.stderr!.on('data', on);
    server.on('exit', (code) => reject(new Error(`exited ${code}\n${output}`)));
  });
  fs.writeFileSync(path.join(SHOTS, 'start.log'), output);
  const link = /http:\/\/\S+\/setup\/\?token=\S+/.exec(output)![0];
  const demoPassword = /password:\s+(\S+)/.exec(output)![1]!;
  log(`started; link ${link.replace(/token=.*/, 'token=…')}`);
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  const base = `http://127.0.0.1:${port}`;
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const problems: string[] = [];
  try {
    const op = await (await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } })).newPage();
    op.setDefaultTimeout(90_000);
    op.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    op.on('response', (r) => {
      if (r.status() >= 500) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await op.goto(link);
    await op.getByLabel('Email').fill(EMAIL);
    await op.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await op.getByRole('button', { name: 'Create the operator account' }).click();
    await op.waitForURL(/\/admin\/$/);
    await op.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await shot(op, '01-console');
    log('admin created, in the console');

    await op.goto('/admin/import/');
    await op.locator('input[type=file]').first().setInputFiles(EPUB);
    await op.getByText(/Imported as/).first().waitFor({ timeout: 120_000 });
    await shot(op, '02-imported');
    const importedLine = await op.getByText(/Imported as/).first().textContent();
    log(`import: ${importedLine}`);

    // the imported title's book id, from the row's link to its page
    const href = (await op.getByRole('link', { name: 'Open the title page' }).first().getAttribute('href'))!;
    const bookId = decodeURIComponent(/\/book\/([^/]+)/.exec(href)![1]!);
    await op.goto(`/admin/titles/${encodeURIComponent(bookId)}/`);
    await op.getByLabel('Title', { exact: true }).waitFor();
    await op.getByLabel('Title', { exact: true }).fill(NEW_TITLE);
    await op.getByRole('button', { name: 'Save', exact: true }).first().click();
    await op.getByText('Saved').first().waitFor();
    await shot(op, '03-edited');
    log(`title ${bookId} edited`);

    await op.goto(`/library/book/${encodeURIComponent(bookId)}`);
    await op.getByRole('heading', { name: NEW_TITLE }).waitFor();
    await op.goto('/library/');
    await op.getByText(NEW_TITLE).first().waitFor();
    const inCatalog = await op.getByText(NEW_TITLE).count();
    log(`in the catalog's first page: ${inCatalog}`);
    await shot(op, '04-catalog');

    const reader = await (await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } })).newPage();
    reader.setDefaultTimeout(90_000);
    reader.on('response', (r) => {
      if (r.status() >= 500) problems.push(`reader ${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await signIn(reader, 'reader@lectern.local', demoPassword);
    await reader.goto(`/library/book/${encodeURIComponent(bookId)}`);
    await reader.getByRole('link', { name: /^(Start|Start reading|Read)/ }).first().click();
    await reader.waitForURL(/\/library\/view\//);
    await reader.frameLocator('iframe').first().locator('body').waitFor();
    const usage: number[] = [];
    reader.on('response', (r) => {
      if (r.url().includes('/api/v1/usage-event/')) usage.push(r.status());
    });
    await reader.mouse.move(640, 500);
    for (let i = 0; i < 10; i++) {
      await reader.waitForTimeout(4000);
      await reader.mouse.wheel(0, 700);
    }
    await reader.getByRole('link', { name: /Next chapter/ }).or(reader.getByRole('button', { name: /Next chapter/ })).first().click();
    await reader.waitForTimeout(5000);
    await shot(reader, '05-reading');
    await reader.goto('/library/');
    await reader.waitForTimeout(3000);
    log(`usage-event answers: ${usage.join(',') || 'none'}`);

    await op.goto('/admin/');
    await op.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await op.waitForTimeout(1000);
    const values = await op.evaluate(() =>
      Array.from(document.querySelectorAll('section, article, .admin-panel, figure')).map((s) => {
        const h = s.querySelector('h2, h3')?.textContent ?? '';
        const bars = Array.from(s.querySelectorAll('[data-value]')).map((b) => Number(b.getAttribute('data-value'))).filter((v) => v > 0);
        return `${h}: ${bars.join(' ')}`;
      }),
    );
    log(`dashboard: ${[...new Set(values)].filter((v) => !v.endsWith(': ')).join(' | ')}`);
    await shot(op, '06-dashboard');

    // a playlist of the operator's own, published under a topic from Engaging
    const csrf = (await op.context().cookies()).find((c) => c.name === 'csrftoken')!.value;
    const collections = '/nest/api/api/v2/collections/';
    const made = (await (await op.request.post(collections, { data: { name: 'Start here', description: 'The walked book.' }, headers: { 'x-csrftoken': csrf } })).json()) as { id: string };
    await op.request.post(`${collections}${made.id}/add-content/`, { data: { content: [`/api/v1/book/${bookId}/`] }, headers: { 'x-csrftoken': csrf } });
    await op.goto('/admin/engaging/');
    const row = op.getByRole('form', { name: 'Start here' });
    await row.getByRole('combobox').selectOption({ index: 1 });
    await row.getByRole('button', { name: 'Save' }).click();
    await op.getByText('Published.').first().waitFor();
    await shot(op, '07-engaging-published');
    log(`published: ${await row.getByRole('combobox').inputValue()}`);

    await op.goto('/admin/audit/');
    await op.getByRole('region', { name: 'Audit entries' }).waitFor();
    const actions = await op.locator('.admin-table tbody code').allTextContents();
    log(`audit: ${actions.join(', ')}`);
    await shot(op, '07-audit');
    const phone = await (await browser.newContext({ baseURL: base, viewport: { width: 390, height: 844 }, storageState: await op.context().storageState() })).newPage();
    await phone.goto('/admin/audit/');
    await phone.getByRole('region', { name: 'Audit entries' }).waitFor();
    await shot(phone, '08-audit-390');
    await phone.goto('/admin/engaging/');
    await phone.getByRole('heading', { name: 'Transformation playlists' }).waitFor();
    await shot(phone, '09-engaging-390');
    await op.goto('/admin/selling/');
    await op.getByRole('button', { name: 'Create code' }).waitFor();
    await shot(op, '10-selling');
  } catch (err) {
    problems.push(`walk stopped: ${(err as Error).message.split('\n')[0]}`);
    for (const p of browser.contexts().flatMap((c) => c.pages())) await p.screenshot({ path: path.join(SHOTS, `failed-${Date.now()}.png`), fullPage: true }).catch(() => undefined);
  } finally {
    log(`problems: ${problems.length ? problems.join(' ; ') : 'none'}`);
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    if (dbName) {
      const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
      await c.connect();
      await c.query(`drop database if exists ${dbName} with (force)`);
      await c.end();
    }
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
