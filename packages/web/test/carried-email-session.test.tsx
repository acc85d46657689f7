/**
 * The address typed on the sign-in page is forgotten whenever the session changes hands, whatever form did it
 * (features/account/carriedEmail.ts forgetCarriedEmailOnSessionChange, wired in app/providers.tsx): registering or
 * joining a team signs in without the sign-in page, and the account page's own sign-out does not go through the
 * menu. Before, the address stayed for the next person at the computer. A file of its own: the app's query client
 * (its module sets react-query's scheduler for every client) is what is tested here, and carried-email.test.tsx's
 * flows run on a plain one.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../src/app/providers.tsx';
import { ForgotPasswordPage } from '../src/features/account/ForgotPasswordPage.tsx';
import { LoginPage } from '../src/features/account/LoginPage.tsx';
import { appPaths } from '../src/shared/links.ts';
import { profile } from './fixtures.ts';

const TYPED = 'first.reader@example.com';
const emailField = () => screen.findByLabelText<HTMLInputElement>('Email');

afterEach(() => {
  document.cookie = 'logged_in=; path=/; max-age=0';
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
