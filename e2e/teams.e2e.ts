/**
 * Teams (docs/decisions.md "Teams") through the pages, at a desktop's and a phone's width: an owner registers, starts a
 * team on the team sign-up page (seats, a member's email, "Add another member"), sees the seats and the pending
 * invitation on the account page; the invited member opens the link the suite's SMTP server caught, signs up with a
 * password, reads a locked chapter through the team; the owner removes them, and they are stopped at the lock. axe on
 * each screen, nothing wider than the phone; screenshots in .tmp/screens/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ACCOUNT_ENTRY_MESSAGES, READING_MESSAGES, TEAM_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type Mailbox, mailbox, seriousViolations } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const PASSWORD = 'a reading lamp by the window';

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.each([
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
])('a team at $label width', ({ label, viewport }) => {
  let browser: Browser;
  let owner: Page;
  let member: Page;
  const stamp = `${label}-${Date.now()}`;
  const ownerEmail = `owner-${stamp}@example.com`;
  const memberEmail = `member-${stamp}@example.com`;
  const teamName = `Reading Circle ${label}`;
  let lockedUrl: string;
  /** opened before the invitations are sent, read by the member's spec */
  let invitations: Mailbox;

  const shot = async (page: Page, name: string) => {
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, `teams-${name}-${label}.png`), fullPage: true });
  };
  const newPage = async () => {
    const page = await (await browser.newContext({ baseURL: inject('baseURL'), viewport })).newPage();
    page.setDefaultTimeout(20_000);
    return page;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    owner = await newPage();
    member = await newPage();
    await owner.goto('/register/');
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password').fill(PASSWORD);
    await owner.getByText(ACCOUNT_ENTRY_MESSAGES.looksGood).waitFor();
    await owner.getByRole('button', { name: 'Start my free trial' }).click();
    await owner.waitForURL('**/welcome/topics/');
    const list = await (await owner.request.get('/api/v1/book/?page_size=50')).json();
    const book = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const detail = await (await owner.request.get(book.api_url)).json();
    // a 'Chapter 1' of real text, locked to anyone without a live subscription
    const locked = detail.chapters.find((c: { label: string; as_sample: boolean; is_public: boolean }) => /Chapter 1\b/.test(c.label) && !c.as_sample && !c.is_public);
    lockedUrl = locked.web_url;
  });
  afterAll(() => browser?.close());

  it('the owner buys seats and invites a member on the team sign-up page', async () => {
    await owner.goto('/u');
    await owner.getByRole('heading', { name: 'Team' }).waitFor();
    await owner.getByRole('link', { name: 'Start a team' }).click();
    await owner.getByRole('heading', { name: 'Start a team' }).waitFor();
    await owner.getByLabel('Team name').fill(teamName);
    await owner.getByText('Basic', { exact: true }).click();
    await owner.getByLabel('Member 1 email').fill(memberEmail);
    // "Add another member" adds a field, takes the focus there and a seat with it; Remove takes it away again
    await owner.getByRole('button', { name: 'Add another member' }).click();
    const second = owner.getByLabel('Member 2 email');
    await second.waitFor();
    await expect.poll(() => second.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await owner.getByLabel('Seats').inputValue()).toBe('3');
    await second.fill('not an address');
    await owner.getByRole('button', { name: 'Buy seats and send invitations' }).click();
    await owner.getByText(ACCOUNT_ENTRY_MESSAGES.emailShape).first().waitFor();
    await owner.getByRole('button', { name: 'Remove member 2' }).click();
    await owner.getByLabel('Seats').fill('2');
    expect(await seriousViolations(owner)).toEqual([]);
    expect(await fitsWidth(owner)).toBe(true);
    await shot(owner, 'sign-up');
    invitations = mailbox();
    await owner.getByRole('button', { name: 'Buy seats and send invitations' }).click();
    await owner.waitForURL('**/u');
    await owner.getByText(`Your team ${teamName} is ready`).waitFor();
    const team = owner.getByRole('region', { name: 'Team' });
    await team.getByText('2 of 2 used').waitFor();
    await team.getByText(memberEmail).waitFor();
    // every seat is taken: a further invitation is refused with the reason
    await team.getByLabel('Invite a member by email').fill(`third-${stamp}@example.com`);
    await team.getByRole('button', { name: 'Invite', exact: true }).click();
    await team.getByText(TEAM_MESSAGES.notEnoughSeats(0)).waitFor();
    expect(await seriousViolations(owner)).toEqual([]);
    expect(await fitsWidth(owner)).toBe(true);
    await shot(owner, 'account-owner');
  });

  it('the member accepts the emailed link, signs up and reads a locked chapter', async () => {
    const link = new RegExp('http://127\\.0\\.0\\.1:\\d+/teams/join/\\?token=[A-Za-z0-9_-]+').exec(await invitations.next(memberEmail))?.[0];
    expect(link).toBeDefined();
    await member.goto(link!);
    await member.getByRole('heading', { name: `Join ${teamName}` }).waitFor();
    expect(await member.getByLabel('Email').inputValue()).toBe(memberEmail);
    await member.getByLabel('Password').fill('a member of the reading circle');
    await member.getByText(ACCOUNT_ENTRY_MESSAGES.looksGood).waitFor();
    expect(await seriousViolations(member)).toEqual([]);
    expect(await fitsWidth(member)).toBe(true);
    await shot(member, 'join');
    await member.getByRole('button', { name: 'Create my account and join' }).click();
    await member.waitForURL('**/u');
    await member.getByText(TEAM_MESSAGES.joined(teamName)).waitFor();
    await member.getByRole('region', { name: 'Team' }).getByText(ownerEmail).waitFor();
    expect(await seriousViolations(member)).toEqual([]);
    expect(await fitsWidth(member)).toBe(true);
    await shot(member, 'account-member');
    await member.goto(lockedUrl);
    const body = member.frameLocator('iframe.chapter-view__frame').locator('body');
    await body.waitFor();
    await expect.poll(async () => (await body.innerText()).length).toBeGreaterThan(3000);
    // the link worked once
    await member.goto(link!);
    await member.getByText(TEAM_MESSAGES.invitationDead).waitFor();
  });

  it('the owner removes the member, who is stopped at the lock', async () => {
    await owner.reload();
    const team = owner.getByRole('region', { name: 'Team' });
    await team.getByText(memberEmail).waitFor();
    await team.getByRole('button', { name: `Remove ${memberEmail}` }).click();
    await team.getByRole('button', { name: 'Yes, remove' }).click();
    await team.getByText(`${memberEmail} is no longer a member.`).waitFor();
    await team.getByText('1 of 2 used').waitFor();
    await member.goto(lockedUrl);
    // told why: the team's subscription no longer covers them, not that a subscription of theirs ended (docs/decisions.md "The paying reader's path")
    await member.getByText(READING_MESSAGES.noLongerOnTeam(teamName)).waitFor();
    expect(await member.locator('iframe.chapter-view__frame').count()).toBe(0);
    expect(await seriousViolations(member)).toEqual([]);
    await shot(member, 'locked');
  });
});
