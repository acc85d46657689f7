/**
 * Live training (library-playlists-account.md §4) as an operator and a reader meet it: the operator adds a course
 * and a session starting in 10 minutes with the command line; a signed-in reader sees 'Online training starting
 * soon' on their pages, follows 'Go to course' to the course page, and, once dismissed, the banner stays away
 * across reloads. Screenshots at 390 px and 1280 px go to .tmp/screens/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LIVE_TRAINING_MESSAGES as M } from '@lectern/core';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string, fullPage = false) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage });
};
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
const banner = (page: Page) => page.getByRole('region', { name: M.startingSoon });

describe('the live-training banner', () => {
  let browser: Browser;
  let courseId = '';
  const email = `live-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const dataDir = inject('dataDir');

  beforeAll(async () => {
    lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    const added = lecternCli(dataDir, [
      'live:course-add',
      '--title',
      'Kubernetes in Three Weeks',
      '--description',
      'Deploy, scale and debug real clusters with the people who run them. Three live sessions with time for your questions.',
      '--topic',
      'Cloud',
      '--topic',
      'DevOps',
    ]);
    courseId = /course (\d+)/.exec(added)![1]!;
    const start = new Date(Date.now() + 10 * 60_000).toISOString();
    lecternCli(dataDir, ['live:event-add', courseId, '--start', start, '--minutes', '90', '--join', 'https://meet.example.com/k8s', '--presenter', 'Ada Lovelace', '--presenter', 'Grace Hopper']);
    expect(lecternCli(dataDir, ['live:list'])).toContain('Kubernetes in Three Weeks');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    // the other specs share this server: leave no banner behind
    if (courseId) lecternCli(dataDir, ['live:remove', courseId]);
  });

  it("shows a signed-in reader 'Online training starting soon'; 'Go to course' leads to the course page; a dismissal lasts across reloads", async () => {
    for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
      const context = await browser.newContext({ baseURL, viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, email, password, '/home/');
      await banner(page).waitFor();
      expect(await banner(page).getByRole('heading', { name: M.startingSoon }).count()).toBe(1);
      expect(await banner(page).textContent()).toContain('Kubernetes in Three Weeks');
      expect(await fitsTheScreen(page)).toBe(true);
      await shot(page, `live-banner-${viewport.width}`);

      // Reachable by keyboard: the button takes the focus and Enter follows it.
      const go = banner(page).getByRole('link', { name: M.goToCourse });
      await go.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/live-training/courses/kubernetes-in-three-weeks/${courseId}/$`));
      await page.getByRole('heading', { level: 1, name: 'Kubernetes in Three Weeks' }).waitFor();
      expect(await page.getByRole('region', { name: M.upcomingSessions }).textContent()).toContain('Ada Lovelace');
      expect(await fitsTheScreen(page)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `live-course-${viewport.width}`, true);

      await page.goto('/live-training/');
      await page.getByRole('heading', { level: 1, name: M.indexTitle }).waitFor();
      await page.getByRole('region', { name: M.fullSchedule }).waitFor();
      expect(await fitsTheScreen(page)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `live-index-${viewport.width}`, true);
      // the topic filter
      await page.getByRole('navigation', { name: 'Topics' }).getByRole('link', { name: 'DevOps' }).click();
      await page.waitForURL(/\?topic=devops$/);
      await page.getByRole('link', { name: 'Kubernetes in Three Weeks' }).first().waitFor();

      if (viewport.width === 1280) {
        await banner(page).getByRole('button', { name: M.dismiss }).click();
        expect(await banner(page).count()).toBe(0);
        await page.reload();
        await page.getByRole('heading', { level: 1, name: M.indexTitle }).waitFor();
        await page.goto('/home/');
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(await banner(page).count()).toBe(0);
      }
      await context.close();
    }
  });
});
