/**
 * Nothing a reader's page floats over the console covers the console's controls: an admin still on a
 * trial (the command line's default status) walks the console's screens at a desktop's and a phone's width; every
 * visible control, brought to the foot of the window (where the subscribe nag sat) and a little above it (where the
 * scroll-to-top button sits), is what the browser finds at its centre. Selling's "Create code" and a person's role
 * "Save" are also clicked through Playwright's actionability check. The admin gets no trial nag anywhere.
 */
import { adminPaths, CONSOLE_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, signedInContexts } from './browser.ts';

const PASSWORD = 'an operator on a trial';

/** Controls of the console's page that something else is drawn over, at the window's foot and 90 px above it. */
function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const covered = new Set<string>();
    const controls = Array.from(document.querySelectorAll<HTMLElement>('.admin__page :is(button, a[href], input, select, textarea, summary)')).filter((el) => {
      const r = el.getBoundingClientRect();
      // a visually hidden control (the import's file inputs, 1 px) is not one anybody clicks
      return r.width > 2 && r.height > 2 && r.height < window.innerHeight / 2 && getComputedStyle(el).visibility !== 'hidden';
    });
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    for (const el of controls) {
      for (const above of [4, 90]) {
        const r = el.getBoundingClientRect();
        window.scrollBy(0, r.bottom - (window.innerHeight - above));
        await frame();
        const now = el.getBoundingClientRect();
        const x = now.left + now.width / 2;
        const y = now.top + now.height / 2;
        if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) continue; // inside a scrolled region
        const hit = document.elementFromPoint(x, y);
        if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
          const name = el.getAttribute('aria-label') || el.textContent?.trim() || el.getAttribute('name') || el.tagName;
          covered.add(`${name.slice(0, 40)} under ${hit.tagName.toLowerCase()}.${Array.from(hit.classList).join('.')}`);
        }
      }
    }
    window.scrollTo(0, 0);
    return [...covered];
  });
}

describe.each([
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
])('the console uncovered at $label width', ({ label, viewport }) => {
  let browser: Browser;
  let admin: Page;
  const email = `trial-operator-${label}-${Date.now()}@example.com`;
  const contexts = signedInContexts(() => browser);

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', PASSWORD, '--role', 'admin']);
    browser = await launchBrowser();
    ({ page: admin } = await contexts.open(email, PASSWORD, viewport));
  });
  afterAll(async () => {
    await contexts.closeAll();
    await browser?.close();
  });

  const visit = async (path: string, ready: () => Promise<void>) => {
    await admin.goto(path);
    await admin.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).waitFor();
    await ready();
    expect(await admin.locator('.nag').count()).toBe(0);
    expect(await coveredControls(admin), path).toEqual([]);
  };

  it('has no trial nag for an admin on a trial, in the console or outside it', async () => {
    const profile = await (await admin.request.get('/u/information_for_javascript')).json();
    expect(profile.subscription_status).toBe('trial');
    await admin.goto('/library/');
    await admin.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await admin.locator('.nag').count()).toBe(0);
  });

  it('leaves every control of the console screens clear', async () => {
    await visit('/admin/', () => admin.getByRole('heading', { name: 'Dashboard' }).waitFor());
    await visit('/admin/import/', () => admin.getByRole('heading', { level: 1 }).waitFor());
    await visit('/admin/titles/', () => admin.getByRole('region', { name: 'Titles list' }).waitFor());
    const firstTitle = await admin.getByRole('region', { name: 'Titles list' }).getByRole('link').first().getAttribute('href');
    await visit(firstTitle!, () => admin.getByRole('heading', { level: 1 }).waitFor());
    await visit('/admin/audit/', () => admin.getByRole('heading', { name: 'Audit log' }).waitFor());

    await visit('/admin/selling/', () => admin.getByRole('button', { name: 'Create code' }).waitFor());
    await admin.getByRole('button', { name: 'Create code' }).scrollIntoViewIfNeeded();
    await admin.getByRole('button', { name: 'Create code' }).click({ trial: true, timeout: 5000 });

    const users = (await (await admin.request.get(`${adminPaths.users()}?q=${encodeURIComponent(email)}`)).json()) as { results: { user_id: string }[] };
    await visit(`/admin/people/${encodeURIComponent(users.results[0]!.user_id)}/`, () => admin.getByRole('button', { name: 'Save', exact: true }).waitFor());
    await admin.getByRole('button', { name: 'Save', exact: true }).click({ trial: true, timeout: 5000 });
  });
});
