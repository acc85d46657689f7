/// <reference types="node" />
/**
 * Signing out and in with the app's own query client (app/providers.tsx, whose module sets react-query's scheduler
 * for every client; carried-email.test.tsx's flows run on a plain one):
 * - the account menu's sign-out takes the reader to the library from any page. The menu unmounts with the profile,
 *   and react-query dropped the sign-out's own callback with it: the app stayed on the page, signed out;
 * - the address typed on the sign-in page is forgotten whenever the session changes hands, whatever form did it
 *   (features/account/carriedEmail.ts forgetCarriedEmailOnSessionChange): registering or joining a team signs in
 *   without the sign-in page, and the account page's own sign-out does not go through the menu. Before, the address
 *   stayed for the next person at the computer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../src/app/providers.tsx';
import { AccountMenu } from '../src/features/account/AccountMenu.tsx';
import { useSession } from '../src/shared/useSession.ts';
import { ForgotPasswordPage } from '../src/features/account/ForgotPasswordPage.tsx';
import { LoginPage } from '../src/features/account/LoginPage.tsx';
import { appPaths } from '../src/shared/links.ts';
import { profile } from './fixtures.ts';

const TYPED = 'first.reader@example.com';
const emailField = () => screen.findByLabelText<HTMLInputElement>('Email');

let server: Server;
let base: string;
beforeAll(async () => {
  // the sign-out's answer, as Lectern gives it (the menu's only request here)
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const signOut = new URL(req.url ?? '/', 'http://x').pathname === '/logout/' && req.method === 'POST';
      res.writeHead(signOut ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(signOut ? {} : { detail: 'Not found.' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => realFetch(new URL(url, base), init));
});
afterAll(() => {
  vi.unstubAllGlobals();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  document.cookie = 'logged_in=; path=/; max-age=0';
});

function Top() {
  const { profile: signedIn } = useSession();
  return signedIn ? <AccountMenu profile={signedIn} /> : null;
}

describe("the account menu's sign-out", () => {
  it('takes the reader to the library from a public page', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    document.cookie = 'logged_in=1; path=/';
    const client = createQueryClient();
    client.setQueryData(['profile'], profile);
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/search/?q=whale']}>
          <Top />
          <Routes>
            <Route path="/search/" element={<p>Results for whale</p>} />
            <Route path={appPaths.library} element={<p>The library</p>} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: /Account: ada/ }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await screen.findByText('The library', {}, { timeout: 10_000 });
    expect(screen.queryByRole('button', { name: /Account: ada/ })).toBeNull();
  });
});

function show() {
  const client = createQueryClient();
  client.setQueryData(['profile'], null);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[appPaths.login()]}>
        <Routes>
          <Route path={appPaths.login()} element={<LoginPage />} />
          <Route path={appPaths.forgotPassword} element={<ForgotPasswordPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

describe('the address carried from the sign-in page, when the session changes hands', () => {
  it('is carried while no one signs in', async () => {
    const client = show();
    fireEvent.change(await emailField(), { target: { value: TYPED } });
    // the same anonymous answer again changes no hands
    client.setQueryData(['profile'], null);
    fireEvent.click(screen.getByRole('link', { name: 'Forgot your password?' }));
    await screen.findByRole('heading', { name: 'Forgot your password?' });
    expect((await emailField()).value).toBe(TYPED);
  });

  it('is forgotten once someone has signed in by another form and signed out by any means', async () => {
    const client = show();
    fireEvent.change(await emailField(), { target: { value: TYPED } });
    // registering signs in: the profile is asked again and is now someone's (RegisterPage, TeamSignUpPage, TeamJoinPage)
    client.setQueryData(['profile'], profile);
    // signed out from the account page: the profile is none again
    client.setQueryData(['profile'], null);
    fireEvent.click(screen.getByRole('link', { name: 'Forgot your password?' }));
    await screen.findByRole('heading', { name: 'Forgot your password?' });
    expect((await emailField()).value).toBe('');
  });
});
