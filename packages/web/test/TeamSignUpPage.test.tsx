/**
 * The team sign-up page (features/account/TeamSignUpPage.tsx) answering a refusal as the registration form does: the
 * reasons under the fields in error, the keyboard focus on the first of them (so a screen reader reads it), and no
 * banner repeating them with the server's field paths; a refusal no field shows is still a banner. Removing a member
 * field drops the member fields' reasons, whose numbers no longer match.
 */
import { ACCOUNT_ENTRY_MESSAGES, accountEntryPaths, teamPaths } from '@lectern/core';
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TeamSignUpPage } from '../src/features/account/TeamSignUpPage.tsx';
import { flush, json, renderSignedIn, stubFetch } from './helpers.tsx';

const plans = { results: [{ slug: 'basic', name: 'Basic', price_cents: 2400, currency: 'USD', period: 'month' }] };

function answering(create: () => Response) {
  return stubFetch((call) => (call.url.includes(accountEntryPaths.plans()) ? json(200, plans) : call.url.includes(teamPaths.create()) ? create() : json(404, { detail: 'no' })));
}

async function fillAndSubmit() {
  fireEvent.change(screen.getByLabelText('Team name'), { target: { value: 'Readers' } });
  fireEvent.change(screen.getByLabelText('Member 1 email'), { target: { value: 'a@example.com' } });
  fireEvent.click(screen.getByRole('button', { name: 'Add another member' }));
  await flush();
  // the new field takes the focus a frame later
  await new Promise((r) => requestAnimationFrame(() => r(null)));
  fireEvent.change(screen.getByLabelText('Member 2 email'), { target: { value: 'not an address' } });
  const submit = screen.getByRole('button', { name: 'Buy seats and send invitations' });
  submit.focus();
  fireEvent.click(submit);
  await flush(60);
  await new Promise((r) => requestAnimationFrame(() => r(null)));
  await flush();
}

describe('TeamSignUpPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('puts a refusal under the field in error and the focus there, with no banner of field paths', async () => {
    answering(() => json(400, { detail: `Invalid request. emails.1: ${ACCOUNT_ENTRY_MESSAGES.emailShape}`, errors: { 'emails.1': [ACCOUNT_ENTRY_MESSAGES.emailShape] } }));
    renderSignedIn(<TeamSignUpPage />, [], '/teams/new/');
    await flush();
    await fillAndSubmit();
    const second = screen.getByLabelText('Member 2 email');
    expect(second.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText(ACCOUNT_ENTRY_MESSAGES.emailShape)).toBeTruthy();
    expect(document.activeElement).toBe(second);
    expect(screen.queryByText(/Invalid request/)).toBeNull();
    // removing a member field: the reasons numbered by the old list go with it
    fireEvent.click(screen.getByRole('button', { name: 'Remove member 2' }));
    await flush();
    expect(screen.queryByText(ACCOUNT_ENTRY_MESSAGES.emailShape)).toBeNull();
    expect(screen.getByLabelText('Member 1 email').getAttribute('aria-invalid')).toBeNull();
  });

  it('shows a refusal no field shows as a banner', async () => {
    answering(() => json(400, { detail: 'You are already in a team. Leave it before you start or join another.', errors: { plan: ['There is no basic plan.'] } }));
    renderSignedIn(<TeamSignUpPage />, [], '/teams/new/');
    await flush();
    await fillAndSubmit();
    expect(screen.getByRole('alert').textContent).toContain('You are already in a team.');
  });
});
