/** Debian's Chromium driven by playwright-core, with the flags that work as root on a machine with no network. */
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_LAUNCH, signIn } from '../scripts/fresh-server.ts';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch(CHROMIUM_LAUNCH);
}

/** Serious and critical axe violations of the app (chapter frames are book content, which axe cannot enter). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Colour contrast is judged on what is painted: let fades and slide-ins finish first (a spinner's endless
  // animation must not hold the check up, hence the bound).
  await page
    .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), null, {
      timeout: 3000,
    })
    .catch(() => undefined);
  let result = await new AxeBuilder({ page }).exclude('iframe').analyze();
  // A colour-contrast finding on a machine under load can be a frame caught mid-fade (the animation list can be
  // empty between a transition's end and its last paint): look once more after a pause; what stays is reported.
  if (result.violations.some((v) => v.id === 'color-contrast')) {
    await page.waitForTimeout(1000);
    result = await new AxeBuilder({ page }).exclude('iframe').analyze();
  }
  // The first few offending elements go into the message: a failure says where, not only how many.
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
}

/** Signs the demo account printed at the server's first start in, through the sign-in page. */
export async function signInAsDemo(page: Page): Promise<void> {
  await signIn(page, inject('demoEmail'), inject('demoPassword'));
}

/** A browser and a page on the suite's server at the given size. */
export async function openPage(viewport: { width: number; height: number }): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await (await browser.newContext({ baseURL: inject('baseURL'), viewport })).newPage();
  page.setDefaultTimeout(15_000);
  return { browser, page };
}

/**
 * Browser contexts of their own (a reader's second browser, a phone), each signed in; `closeAll` closes them.
 * A page's alerts and confirms are recorded in `dialogs` and dismissed.
 */
export function signedInContexts(browser: () => Browser) {
  const contexts: BrowserContext[] = [];
  return {
    async open(email: string, password: string, viewport: { width: number; height: number }): Promise<{ page: Page; dialogs: string[] }> {
      const context = await browser().newContext({ baseURL: inject('baseURL'), viewport });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await signIn(page, email, password);
      return { page, dialogs };
    },
    async closeAll(): Promise<void> {
      for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
    },
  };
}
