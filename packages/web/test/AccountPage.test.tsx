/// <reference types="node" />
/**
 * The paying reader's path through the account pages (docs/decisions.md "The paying reader's path"), against a real
 * HTTP server (node:http on a free port; the pages' relative calls are sent there): changing the email says so and
 * clears the form (it showed "TypeError: Cannot read properties of null (reading 'reset')" under the field), the
 * subscribe page preselects the plan chosen at sign-up and applies a pro-only code to it, the thanks after subscribing
 * are English, and signing out from the account page lands on the library, not on a sign-in form that leads back to /u.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AccountProfile, accountEntryPaths, SUBSCRIPTION_MESSAGES, type Subscription, teamPaths } from '@lectern/core';
import { AccountMenu } from '../src/features/account/AccountMenu.tsx';
import { AccountPage } from '../src/features/account/AccountPage.tsx';
import { RegisterPage } from '../src/features/account/RegisterPage.tsx';
import { SubscribePage } from '../src/features/account/SubscribePage.tsx';
import { useLogout, useSession } from '../src/shared/useSession.ts';
import { profile } from './fixtures.ts';

let server: Server;
let base: string;
const received: { method: string; url: string; body: unknown }[] = [];

const trial: Subscription = {
  status: 'trial',
  plan: 'pro',
  trial_ends_at: '2030-01-01T00:00:00.000Z',
  subscription_ends_at: null,
  can: { subscribe: true, upgrade: false, cancel: false, reactivate: false },
  invoices: [],
};
let subscription: Subscription = trial;
const PRO_ONLY = 'halfpro';
/** The plans' names as the operator set them (admin's selling page renames them). */
const DEFAULT_NAMES = { basic: 'Basic', pro: 'Pro' };
let planNames = DEFAULT_NAMES;

/** What the server answers: the few calls these pages make, as Lectern answers them. */
function answer(method: string, url: URL, body: unknown): [number, unknown] {
  const path = url.pathname;
  if (path === accountEntryPaths.subscription() && method === 'GET') return [200, subscription];
  if (path === accountEntryPaths.subscription() && method === 'POST') {
    subscription = { ...subscription, status: 'subscriber', plan: (body as { plan: string }).plan, can: { subscribe: false, upgrade: false, cancel: true, reactivate: false } };
    return [200, subscription];
  }
  if (path === teamPaths.mine()) return [200, { team: null }];
  if (path === accountEntryPaths.otherSessions() && method === 'DELETE') return [500, { detail: 'The sessions could not be signed out: try again.' }];
  if (path === '/u/information_for_javascript') return [200, profile];
  if (path === accountEntryPaths.email() && method === 'POST') {
    const { email } = body as { email: string };
    return [200, { ...profile, account: { ...profile.account, email } }];
  }
  if (path === accountEntryPaths.plans())
    return [
      200,
      {
        results: [
          { slug: 'basic', name: planNames.basic, price_cents: 3000, currency: 'USD', period: 'month' },
          { slug: 'pro', name: planNames.pro, price_cents: 4000, currency: 'USD', period: 'month' },
        ],
      },
    ];
  if (path === accountEntryPaths.promotionRedeem()) {
    const code = url.searchParams.get('code') ?? '';
    const plan = url.searchParams.get('plan') ?? 'basic';
    const ok = code === PRO_ONLY && plan === 'pro';
    return [
      200,
      {
        success: ok,
        promotion_code: code,
        message: ok ? SUBSCRIPTION_MESSAGES.codeApplied(code) : SUBSCRIPTION_MESSAGES.codeOtherPlan(plan, 'pro'),
        currency_costs: { USD: ok ? '20.00' : '40.00' },
        period: 'month',
        is_sale: false,
      },
    ];
  }
  if (path === accountEntryPaths.passwordValidation() && method === 'POST') {
    const { password } = body as { password: string };
    return [200, password === 'password123' ? { valid: false, msg: 'This password is too common: choose another.' } : { valid: true, msg: '' }];
  }
  if (path === '/logout/' && method === 'POST') return [200, {}];
  return [404, { detail: 'Not found.' }];
}

// A loaded machine (the suite runs beside others) can take seconds for a page's few round trips.
vi.setConfig({ testTimeout: 30_000 });

beforeAll(async () => {
  await import('../src/api/schemas.ts');
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      received.push({ method: req.method ?? 'GET', url: url.pathname + url.search, body });
      const [status, json] = answer(req.method ?? 'GET', url, body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  subscription = trial;
  planNames = DEFAULT_NAMES;
  localStorage.clear();
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => realFetch(new URL(url, base), init));
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'logged_in=; path=/; max-age=0';
});

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

/** The shell's part that matters here: the account menu while signed in. */
function Top() {
  const { profile: signedIn } = useSession();
  return signedIn ? <AccountMenu profile={signedIn} /> : null;
}

/** Signs out with nothing but the session hook: no menu navigating afterwards. */
function SignOutHere() {
  const logout = useLogout();
  return (
    <button type="button" onClick={() => logout.mutate()}>
      Sign out here
    </button>
  );
}

function show(path: string, who: AccountProfile | null = profile, top = <Top />) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (who) client.setQueryData(['profile'], who);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        {top}
        <Routes>
          <Route path="/u" element={<AccountPage />} />
          <Route path="/subscribe/" element={<SubscribePage />} />
          <Route path="/register/" element={<RegisterPage />} />
          <Route path="/library/" element={<p>The library</p>} />
          <Route path="/login/" element={<p>Sign in</p>} />
        </Routes>
        <Where />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

describe('the account page', () => {
  it('changes the email, says so, and clears the form', async () => {
    show('/u');
    const email = await screen.findByLabelText<HTMLInputElement>('New email');
    const form = email.closest('form')!;
    const password = form.querySelector<HTMLInputElement>('input[name="current_password"]')!;
    fireEvent.change(email, { target: { value: 'new@example.com' } });
    fireEvent.change(password, { target: { value: 'a reading lamp by the window' } });
    fireEvent.submit(form);
    await screen.findByText('Your email is now new@example.com.', {}, { timeout: 10_000 });
    expect(received.find((r) => r.url === accountEntryPaths.email())?.body).toEqual({ current_password: 'a reading lamp by the window', email: 'new@example.com' });
    expect(document.body.textContent).not.toMatch(/TypeError/);
    expect(email.value).toBe('');
    expect(password.value).toBe('');
    expect(email.getAttribute('aria-invalid')).not.toBe('true');
  });

  it('confirms the new password in the words of §5: a new one first, a valid one, nothing under 6 characters, a match', async () => {
    show('/u');
    const next = await screen.findByLabelText<HTMLInputElement>('New password');
    const repeat = screen.getByLabelText<HTMLInputElement>('Repeat the new password');
    /** what the confirmation field says under it (its error, announced through aria-describedby) */
    const said = () => (repeat.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join('') || null;
    const matched = () => screen.queryByText('We have a match!');

    fireEvent.change(repeat, { target: { value: 'a reading lamp' } });
    expect(said()).toBe('Please enter a new password first.');
    fireEvent.change(next, { target: { value: 'password123' } });
    // the server refuses it (after the 300 ms wait): the confirmation says so
    await waitFor(() => expect(said()).toBe('Please make sure your new password is valid first.'), { timeout: 10_000 });
    fireEvent.change(next, { target: { value: 'a reading lamp by the window' } });
    await waitFor(() => expect(received.some((r) => (r.body as { password?: string } | undefined)?.password === 'a reading lamp by the window')).toBe(true), { timeout: 10_000 });
    await waitFor(() => expect(said()).toBe('This must match your new password.'), { timeout: 10_000 });
    expect(matched()).toBeNull();
    // under 6 characters: nothing yet
    fireEvent.change(repeat, { target: { value: 'a rea' } });
    expect(said()).toBeNull();
    expect(matched()).toBeNull();
    fireEvent.change(repeat, { target: { value: 'a reading lamp by the window' } });
    expect(matched()).not.toBeNull();
    expect(said()).toBeNull();
    // emptied: cleared
    fireEvent.change(repeat, { target: { value: '' } });
    expect(said()).toBeNull();
    expect(matched()).toBeNull();
  });

  it('says why the other sessions were not signed out, and lets the reader try again', async () => {
    show('/u');
    const button = await screen.findByRole('button', { name: 'Sign out other sessions' });
    fireEvent.click(button);
    expect((await screen.findByRole('alert', {}, { timeout: 10_000 })).textContent).toContain('The sessions could not be signed out: try again.');
    expect(received.filter((r) => r.url === accountEntryPaths.otherSessions() && r.method === 'DELETE')).toHaveLength(1);
    await waitFor(() => expect(button.getAttribute('aria-busy')).not.toBe('true'));
    expect(screen.queryByText(/Signed out \d+ other session|No other session/)).toBeNull();
  });

  it('signing out lands on the library, not on a sign-in form that leads back here', async () => {
    show('/u');
    await screen.findByRole('heading', { name: 'Your account' });
    fireEvent.click(screen.getByRole('button', { name: /Account: ada/ }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await screen.findByText('The library', {}, { timeout: 10_000 });
    await waitFor(() => expect(screen.queryByRole('button', { name: /Account: ada/ })).toBeNull());
    expect(screen.getByTestId('where').textContent).toBe('/library/');
  });

  it('does not send a reader who signed out on it to sign in again, whoever navigates', async () => {
    // In Chromium the menu's own navigation can lose the race to the page's reaction to the session's end (seen:
    // /login/?next=%2Fu); here nothing else navigates, so the page's own answer is what is seen.
    show('/u', profile, <SignOutHere />);
    await screen.findByRole('heading', { name: 'Your account' });
    fireEvent.click(screen.getByRole('button', { name: 'Sign out here' }));
    await screen.findByText('The library', {}, { timeout: 10_000 });
    expect(screen.getByTestId('where').textContent).toBe('/library/');
    expect(received.some((r) => r.method === 'POST' && r.url === '/logout/')).toBe(true);
  });

  it('still sends a visitor without a session to sign in and come back', async () => {
    document.cookie = 'logged_in=; path=/; max-age=0';
    show('/u', null);
    await screen.findByText('Sign in', {}, { timeout: 10_000 });
    expect(screen.getByTestId('where').textContent).toBe('/login/?next=%2Fu');
  });
});

describe('the subscribe page', () => {
  it('preselects the plan chosen at sign-up, applies a pro-only code to it, and thanks in English', async () => {
    show('/subscribe/');
    const pro = await screen.findByRole<HTMLInputElement>('radio', { name: /^Pro/ });
    expect(pro.checked).toBe(true);
    expect(screen.getByRole<HTMLInputElement>('radio', { name: /^Basic/ }).checked).toBe(false);
    // §4: pro carries no code (basic would carry price24)
    const code = screen.getByLabelText<HTMLInputElement>('Promotion code');
    expect(code.value).toBe('');
    fireEvent.change(code, { target: { value: PRO_ONLY } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await screen.findByText(SUBSCRIPTION_MESSAGES.codeApplied(PRO_ONLY));
    expect(received.find((r) => r.url.startsWith(accountEntryPaths.promotionRedeem()))?.url).toContain('plan=pro');
    fireEvent.click(screen.getByRole('button', { name: 'Subscribe' }));
    await screen.findByText(SUBSCRIPTION_MESSAGES.subscribed('Pro'), {}, { timeout: 10_000 });
    expect(SUBSCRIPTION_MESSAGES.subscribed('Pro')).toBe("You're subscribed to Pro. Thank you!");
    expect(screen.getByTestId('where').textContent).toBe('/u');
    expect(received.find((r) => r.method === 'POST' && r.url === accountEntryPaths.subscription())?.body).toMatchObject({ plan: 'pro', promotion_code: PRO_ONLY });
  });

  it("says 'This code has already been applied.' for the same code again (lowercased), without asking the server twice", async () => {
    show('/subscribe/');
    await screen.findByRole('radio', { name: /^Pro/ });
    const code = screen.getByLabelText<HTMLInputElement>('Promotion code');
    fireEvent.change(code, { target: { value: PRO_ONLY } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await screen.findByText(`${PRO_ONLY} has been applied.`, {}, { timeout: 10_000 });
    fireEvent.change(code, { target: { value: ` ${PRO_ONLY.toUpperCase()} ` } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await screen.findByText('This code has already been applied.');
    expect(received.filter((r) => r.url.startsWith(accountEntryPaths.promotionRedeem()))).toHaveLength(1);
  });

  it("offers a subscriber the other plan, marks theirs, and sends nothing for the plan they already have", async () => {
    subscription = { ...trial, status: 'subscriber', plan: 'basic', trial_ends_at: null, can: { subscribe: false, upgrade: true, cancel: true, reactivate: false } };
    show('/subscribe/');
    await screen.findByRole('heading', { name: 'Change your plan' });
    // the change is the point of the page: Pro first, with no code (Basic's price24 would go with Basic)
    expect((await screen.findByRole<HTMLInputElement>('radio', { name: /^Pro/ })).checked).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('Promotion code').value).toBe('');
    expect(screen.getByRole('radio', { name: /^Basic\s*Your plan now/ })).toBeTruthy();
    expect(screen.getByText('Your playlists, notes and progress stay as they are.')).toBeTruthy();
    expect(screen.queryByText(/is waiting/)).toBeNull();
    // their own plan: nothing to send, and said why
    fireEvent.click(screen.getByRole('radio', { name: /^Basic/ }));
    const submit = screen.getByRole<HTMLButtonElement>('button', { name: 'Change my plan' });
    expect(submit.disabled).toBe(true);
    expect(submit.getAttribute('aria-describedby')).toBe('subscribe-plan-now');
    expect(screen.getByRole('status').textContent).toBe('You are on Basic now: choose the other plan to change.');
    fireEvent.click(screen.getByRole('radio', { name: /^Pro/ }));
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);
    await screen.findByText(SUBSCRIPTION_MESSAGES.subscribed('Pro'), {}, { timeout: 10_000 });
    expect(received.filter((r) => r.method === 'POST' && r.url === accountEntryPaths.subscription()).map((r) => (r.body as { plan: string }).plan)).toEqual(['pro']);
  });

  it("says the plans by the operator's names: the choice, the thanks, and the account page after it", async () => {
    planNames = { basic: 'Reader', pro: 'Reader and Live Training' };
    subscription = { ...trial, status: 'subscriber', plan: 'basic', trial_ends_at: null, can: { subscribe: false, upgrade: true, cancel: true, reactivate: false } };
    show('/u');
    await screen.findByRole('link', { name: 'Upgrade to Reader and Live Training' });
    cleanup();
    show('/subscribe/');
    fireEvent.click(await screen.findByRole('radio', { name: /^Reader\s*Your plan now/ }));
    expect(screen.getByRole('status').textContent).toBe('You are on Reader now: choose the other plan to change.');
    fireEvent.click(screen.getByRole('radio', { name: /^Reader and Live Training/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Change my plan' }));
    await screen.findByText("You're subscribed to Reader and Live Training. Thank you!", {}, { timeout: 10_000 });
    expect(screen.getByTestId('where').textContent).toBe('/u');
    const plan = [...document.querySelectorAll('dt')].find((dt) => dt.textContent === 'Plan')?.nextElementSibling;
    expect(plan?.textContent).toBe('Reader and Live Training');
  });

  it("names the plans of the sign-up form as the operator did, and Basic's in Pro's summary", async () => {
    planNames = { basic: 'Reader', pro: 'Reader and Live Training' };
    show('/register/', null);
    expect(await screen.findByRole('radio', { name: /^Reader and Live Training\s*Everything in Reader, and live online training\./ })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('radio', { name: /^Reader\s*The whole library, for one reader\./ }).checked).toBe(true);
  });

  it('still takes the plan the address names', async () => {
    show('/subscribe/?plan=basic');
    const basic = await screen.findByRole<HTMLInputElement>('radio', { name: /^Basic/ });
    expect(basic.checked).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('Promotion code').value).toBe('price24');
  });
});
