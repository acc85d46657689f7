/// <reference types="node" />
/**
 * The address typed on the sign-in page goes with the visitor to the "forgot password" page and back
 * (features/account/carriedEmail.ts), but not to the next person at a shared computer: it is forgotten once a reset
 * link has been sent, and when the reader signs out. Against a real HTTP server (node:http on a free port).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Link, MemoryRouter, Route, Routes } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCOUNT_ENTRY_MESSAGES, type AccountProfile, accountEntryPaths } from '@lectern/core';
import { AccountMenu } from '../src/features/account/AccountMenu.tsx';
import { ForgotPasswordPage } from '../src/features/account/ForgotPasswordPage.tsx';
import { LoginPage } from '../src/features/account/LoginPage.tsx';
import { appPaths } from '../src/shared/links.ts';
import { useSession } from '../src/shared/useSession.ts';
import { profile } from './fixtures.ts';

let server: Server;
let base: string;
const TYPED = 'first.reader@example.com';

vi.setConfig({ testTimeout: 30_000 });

beforeAll(async () => {
  await import('../src/api/schemas.ts');
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const [status, json]: [number, unknown] =
        path === accountEntryPaths.passwordReset() && req.method === 'POST'
          ? [202, { detail: ACCOUNT_ENTRY_MESSAGES.resetSent }]
          : path === '/logout/' && req.method === 'POST'
            ? [200, {}]
            : path === '/u/information_for_javascript'
              ? [200, profile]
              : [404, { detail: 'Not found.' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  document.cookie = 'csrftoken=tok; path=/';
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => realFetch(new URL(url, base), init));
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'logged_in=; path=/; max-age=0';
});

/** The shell's part that matters here: the account menu while signed in. */
function Top() {
  const { profile: signedIn } = useSession();
  return signedIn ? <AccountMenu profile={signedIn} /> : null;
}

function show(path: string, who: AccountProfile | null) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (who) document.cookie = 'logged_in=1; path=/';
  client.setQueryData(['profile'], who);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Top />
        <Routes>
          <Route path={appPaths.login()} element={<LoginPage />} />
          <Route path={appPaths.forgotPassword} element={<ForgotPasswordPage />} />
          <Route path={appPaths.library} element={<Link to={appPaths.login()}>Sign in</Link>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const emailField = () => screen.findByLabelText<HTMLInputElement>('Email');

describe('the address carried between the sign-in and "forgot password" pages', () => {
  it('is forgotten once the reset link has been sent', async () => {
    show(appPaths.login(), null);
    fireEvent.change(await emailField(), { target: { value: TYPED } });
    fireEvent.click(screen.getByRole('link', { name: 'Forgot your password?' }));
    await screen.findByRole('heading', { name: 'Forgot your password?' });
    const field = await emailField();
    // carried there: the page works as before
    expect(field.value).toBe(TYPED);
    fireEvent.submit(field.closest('form')!);
    await screen.findByText(ACCOUNT_ENTRY_MESSAGES.resetSent, {}, { timeout: 10_000 });
    fireEvent.click(screen.getByRole('link', { name: 'Back to sign in' }));
    await screen.findByRole('heading', { name: 'Sign in' });
    expect((await emailField()).value).toBe('');
  });

  it('is forgotten when the reader signs out', async () => {
    show(appPaths.login(), profile);
    fireEvent.change(await emailField(), { target: { value: TYPED } });
    fireEvent.click(screen.getByRole('button', { name: /Account: ada/ }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    fireEvent.click(await screen.findByRole('link', { name: 'Sign in' }, { timeout: 10_000 }));
    await screen.findByRole('heading', { name: 'Sign in' });
    await waitFor(() => expect(screen.queryByRole('button', { name: /Account: ada/ })).toBeNull());
    expect((await emailField()).value).toBe('');
  });
});
