/**
 * The operators' console, selling (docs/decisions.md "The console's selling"), in Chromium at a desktop's and a phone's
 * width against the built app and the suite's server: a reader buys a team (an unpaid invoice); the operator finds the
 * invoice among the unpaid ones by the reader's email and marks it paid from its row, then opens the team, is told by
 * name why too few seats are refused, and gives it more seats (a new unpaid invoice for them). axe on every screen,
 * nothing wider than the window; screenshots in .tmp/screens/admin-selling-*.png. What it makes (an account, a team,
 * invoices) is its own: no other test reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { adminPaths, CONSOLE_MESSAGES, TEAM_MESSAGES, teamPaths, type AdminInvoicePage } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const PASSWORD = 'an operator with a ledger';
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** The server's API with the page's session (for what the test starts from and checks). */
async function post(page: Page, url: string, data: unknown) {
  const csrf = (await page.context().cookies()).find((c) => c.name === 'csrftoken')?.value ?? '';
  return page.request.post(url, { headers: { 'x-csrftoken': csrf, origin: inject('baseURL') }, data });
}

describe.each([
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
])('the console’s selling at $label width', ({ label, viewport }) => {
  let browser: Browser;
  let admin: Page;
  let owner: Page;
  const stamp = `${label}${Date.now()}`;
  const adminEmail = `seller-${stamp}@example.com`;
  const ownerEmail = `crew-owner-${stamp}@example.com`;
  const teamName = `Crew ${stamp}`;
  const contexts = signedInContexts(() => browser);
  let teamId = '';

  const shot = async (page: Page, name: string) => {
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, `admin-selling-${name}-${label}.png`), fullPage: true });
  };
  const clean = async (page: Page) => {
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  };
  const ownerInvoices = async (state: string): Promise<AdminInvoicePage> =>
    (await admin.request.get(`${adminPaths.invoices()}?state=${state}&q=${encodeURIComponent(ownerEmail)}`)).json();

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', adminEmail, '--password', PASSWORD, '--role', 'admin', '--status', 'subscriber']);
    lecternCli(inject('dataDir'), ['users:create', '--email', ownerEmail, '--password', PASSWORD, '--status', 'expired']);
    browser = await launchBrowser();
    ({ page: admin } = await contexts.open(adminEmail, PASSWORD, viewport));
    ({ page: owner } = await contexts.open(ownerEmail, PASSWORD, viewport));
    const bought = await post(owner, teamPaths.create(), { name: teamName, plan: 'basic', seats: 2, emails: [] });
    expect(bought.status(), await bought.text()).toBe(201);
    teamId = String((await bought.json()).id);
  });
  afterAll(async () => {
    await contexts.closeAll();
    await browser?.close();
  });

  it('finds the team’s unpaid invoice by the owner’s email and marks it paid from its row', async () => {
    const [invoice] = (await ownerInvoices('unpaid')).results;
    expect(invoice).toMatchObject({ status: 'open', seats: 2, team: { team_id: teamId, name: teamName } });
    await admin.goto('/admin/');
    await admin.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).getByRole('link', { name: 'Invoices' }).click();
    await admin.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
    await admin.getByRole('searchbox', { name: 'Search by account email' }).fill(ownerEmail);
    await admin.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const list = admin.getByRole('region', { name: 'Invoices list' });
    const row = list.getByRole('row').filter({ hasText: ownerEmail });
    await row.waitFor();
    // the owner's row can be seen in the list before the search's answer replaces it: wait for the filtered list
    await expect.poll(() => list.getByRole('row').count(), { timeout: 10_000 }).toBe(2); // the heading's row and the owner's invoice
    await row.getByRole('link', { name: teamName }).waitFor();
    await clean(admin);
    await shot(admin, 'invoices');

    await row.getByRole('button', { name: `Mark invoice ${invoice!.id} paid` }).click();
    // paid: gone from the unpaid ones
    await admin.getByText(CONSOLE_MESSAGES.noResults).waitFor();
    expect((await ownerInvoices('unpaid')).results).toEqual([]);
    expect((await ownerInvoices('paid')).results).toEqual([expect.objectContaining({ id: invoice!.id, status: 'paid' })]);
    // and the paid list shows it so
    await admin.getByRole('combobox', { name: 'Show' }).selectOption('paid');
    await list.getByRole('row').filter({ hasText: ownerEmail }).getByText('paid', { exact: true }).waitFor();
    await clean(admin);
  });

  it('opens the team, names why too few seats are refused, and gives it more seats', async () => {
    await admin.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel }).getByRole('link', { name: 'Teams' }).click();
    await admin.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await admin.getByRole('searchbox', { name: /Search by team name/ }).fill(stamp);
    await admin.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const row = admin.getByRole('region', { name: 'Teams list' }).getByRole('row').filter({ hasText: teamName });
    await row.getByText('1 of 2').waitFor();
    await clean(admin);
    await shot(admin, 'teams');
    await row.getByRole('link', { name: teamName }).click();
    await admin.getByRole('heading', { name: teamName, level: 1 }).waitFor();
    const members = admin.getByRole('region', { name: 'Members list' });
    await members.getByRole('row').filter({ hasText: ownerEmail }).getByText('owner', { exact: true }).waitFor();

    const seats = admin.getByRole('textbox', { name: 'Seats' });
    await seats.fill('0');
    await admin.getByRole('button', { name: 'Save seats' }).click();
    await admin.getByText(TEAM_MESSAGES.seatsNumber).first().waitFor();
    expect(await seats.getAttribute('aria-invalid')).toBe('true');
    await clean(admin);

    await seats.fill('4');
    await admin.getByRole('button', { name: 'Save seats' }).click();
    await admin.getByText(CONSOLE_MESSAGES.seatsSaved(4)).waitFor();
    await admin.getByText('1 of 4').waitFor();
    await clean(admin);
    await shot(admin, 'team');
    // the two seats added are invoiced to the owner for the rest of the period
    const [added] = (await ownerInvoices('unpaid')).results;
    expect(added).toMatchObject({ status: 'open', seats: 2, team: { team_id: teamId } });
    const team = await (await admin.request.get(adminPaths.team(teamId))).json();
    expect(team).toMatchObject({ seats: 4, seats_used: 1, members: 1 });
  });
});
