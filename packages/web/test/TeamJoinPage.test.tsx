/**
 * The invitation link's page (features/account/TeamJoinPage.tsx) for a visitor: a password the server refuses, or
 * none, puts the keyboard focus on the password field, where a screen reader reads the reason under it.
 */
import { ACCOUNT_ENTRY_MESSAGES, teamPaths } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TeamJoinPage } from '../src/features/account/TeamJoinPage.tsx';
import { flush, json, stubFetch } from './helpers.tsx';

const info = { team_name: 'Readers', owner_email: 'owner@example.com', email: 'new@example.com', expires_at: '2030-01-01T00:00:00.000Z', account_exists: false };
const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));

function renderSignedOut() {
  document.cookie = 'logged_in=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT';
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/teams/join/?token=the-token']}>
        <TeamJoinPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('TeamJoinPage, a visitor', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('puts the focus on the password when it is missing or refused', async () => {
    const refused = 'This password is too common.';
    stubFetch((call) =>
      call.url.includes(teamPaths.invitationByToken()) && call.method === 'POST'
        ? json(400, { detail: refused, errors: { password: [refused] } })
        : call.url.includes(teamPaths.invitationByToken())
          ? json(200, info)
          : json(200, { valid: true, message: 'Looks good!' }),
    );
    renderSignedOut();
    const password = await screen.findByLabelText('Password');
    const submit = screen.getByRole('button', { name: 'Create my account and join' });
    // none
    submit.focus();
    fireEvent.submit(submit.closest('form')!);
    await flush();
    await frame();
    expect(screen.getByText(ACCOUNT_ENTRY_MESSAGES.required)).toBeTruthy();
    expect(document.activeElement).toBe(password);
    // refused by the server
    fireEvent.change(password, { target: { value: 'password123' } });
    submit.focus();
    fireEvent.submit(submit.closest('form')!);
    await flush(60);
    await frame();
    expect(screen.getByText(refused)).toBeTruthy();
    expect(document.activeElement).toBe(password);
  });
});
