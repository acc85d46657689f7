/**
 * The first operator from the browser alone (docs/decisions.md "The first operator, from the browser"), at a desktop's
 * and a phone's width: a fresh Lectern of its own (one small book imported beforehand, so the start skips the sample
 * library) prints a one-time set-up link; the page at that link refuses a weak password in registration's words,
 * creates the admin, lands in the console signed in, and the audit log has the new account; the link is dead
 * afterwards. axe on each screen, nothing wider than the window; screenshots in .tmp/screens/first-operator-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminPaths, auditPageSchema, CONSOLE_MESSAGES, FIRST_OPERATOR_MESSAGES, PASSWORD_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshServer, importBook, startFreshServer } from '../scripts/fresh-server.ts';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const PASSWORD = 'a first operator with a lamp';
const SET_UP_LINK = /http:\/\/\S+\/setup\/\?token=[A-Za-z0-9_-]+/;
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.each([
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
])('the first operator at $label width', ({ label, viewport }) => {
  let server: FreshServer;
  let browser: Browser;
  let page: Page;
  let link: string;
  const email = `first-${label}@example.com`;

  const shot = async (name: string) => {
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, `first-operator-${name}-${label}.png`), fullPage: true });
  };
  const clean = async () => {
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  };

  beforeAll(async () => {
    server = await startFreshServer({
      dataDirPrefix: 'lectern-first-operator-',
      waitFor: /\(or on the command line: [^\n]*\n/,
      prepare: (dataDir) => {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-first-book-')), 'small.epub');
        fs.writeFileSync(file, epubBook({ identifier: `urn:first-operator:${label}`, title: 'A Small Book', chapters: [{ path: 'one.xhtml', label: 'One', body: '<h1>One</h1><p>A page.</p>' }] }));
        importBook(dataDir, file);
      },
    });
    link = SET_UP_LINK.exec(server.output)![0];
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport })).newPage();
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('prints the one-time link once, with the command line as the other way', () => {
    expect(server.output).toContain(FIRST_OPERATOR_MESSAGES.printedIntro);
    expect(server.output).toContain('users:create --email E --role admin');
    expect(server.output.match(new RegExp(SET_UP_LINK.source, 'g'))).toHaveLength(1);
  });

  it('creates the admin from the link and lands in the console, signed in', async () => {
    await page.goto(link);
    await page.getByRole('heading', { name: FIRST_OPERATOR_MESSAGES.heading }).waitFor();
    await clean();
    await shot('form');

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: FIRST_OPERATOR_MESSAGES.submit }).click();
    await page.getByText(PASSWORD_MESSAGES.tooShort).first().waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: FIRST_OPERATOR_MESSAGES.submit }).click();

    await page.waitForURL(/\/admin\/$/);
    await page.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).waitFor();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await clean();
    await shot('console');

    const log = auditPageSchema.parse(await (await page.request.get(`${server.base}${adminPaths.audit()}?action=user.create`)).json()).results;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor_label: email, action: 'user.create', detail: { email, roles: ['admin'] } });
  });

  it('is dead once used, also in another browser', async () => {
    const other = await (await browser.newContext({ viewport })).newPage();
    await other.goto(link);
    await other.getByText(FIRST_OPERATOR_MESSAGES.linkDead).waitFor();
    expect(await other.getByLabel('Email').count()).toBe(0);
    await other.context().close();
  });
});
