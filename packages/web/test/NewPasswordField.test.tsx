/**
 * The one new-password field (shared/NewPasswordField.tsx) the registration, team join, first operator, reset and
 * account pages use: asked of the server 300 ms after the last key with the email it must not be
 * (library-playlists-account.md §5), "Looks good!" or the server's words, the page's own errors first.
 */
import { ACCOUNT_ENTRY_MESSAGES, accountEntryPaths, PASSWORD_CHECK_DEBOUNCE_MS, PASSWORD_MESSAGES } from '@lectern/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NewPasswordField } from '../src/shared/NewPasswordField.tsx';
import type { LiveCheck } from '../src/shared/useLiveCheck.ts';
import { flush, json, stubFetch } from './helpers.tsx';

const refused = 'This password is too common: choose another.';

/** The server's answer: "password123" is too common, anything else passes. */
function server() {
  return stubFetch((call) => {
    const { password } = call.body as { password: string };
    return json(200, password === 'password123' ? { valid: false, msg: refused } : { valid: true, msg: '' });
  });
}

async function type(field: HTMLElement, value: string) {
  fireEvent.change(field, { target: { value } });
  await act(async () => {
    vi.advanceTimersByTime(PASSWORD_CHECK_DEBOUNCE_MS);
  });
  await flush(60);
}

describe('NewPasswordField', () => {
  beforeEach(() => {
    document.cookie = 'csrftoken=tok; path=/';
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('asks the server once, after the last key, with the email; says "Looks good!" or the server\'s words', async () => {
    const calls = server();
    const results: LiveCheck['state'][] = [];
    render(<NewPasswordField email={() => 'me@example.com'} onResult={(r) => results.push(r.state)} />);
    const field = screen.getByLabelText('Password');
    expect(screen.getByText(PASSWORD_MESSAGES.hint)).toBeTruthy();
    expect(field.getAttribute('autocomplete')).toBe('new-password');

    fireEvent.change(field, { target: { value: 'pass' } });
    await type(field, 'password123');
    expect(calls.map((c) => [c.url.endsWith(accountEntryPaths.passwordValidation()), c.body])).toEqual([
      [true, { password: 'password123', email: 'me@example.com', field_name: 'password' }],
    ]);
    // the first answer waits for the lazily imported schemas as well (real module loading, not a timer)
    await vi.waitFor(() => expect(screen.getByText(refused)).toBeTruthy());
    expect(field.getAttribute('aria-invalid')).toBe('true');

    await type(field, 'a long and unusual phrase');
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toBe(ACCOUNT_ENTRY_MESSAGES.looksGood));
    expect(field.getAttribute('aria-invalid')).toBeNull();
    expect(results).toEqual(['idle', 'checking', 'checking', 'error', 'checking', 'ok']);
  });

  it("shows the page's errors instead of the check's, and hides \"Looks good!\" under them", async () => {
    server();
    const { rerender } = render(<NewPasswordField label="New password" name="new_password" errors={['The link has been used.']} />);
    const field = screen.getByLabelText('New password');
    expect(field.getAttribute('name')).toBe('new_password');
    await type(field, 'a long and unusual phrase');
    await vi.waitFor(() => expect(fetch).toHaveBeenCalled());
    await flush(60);
    expect(screen.getByText('The link has been used.')).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
    rerender(<NewPasswordField label="New password" name="new_password" errors={[]} />);
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toBe(ACCOUNT_ENTRY_MESSAGES.looksGood));
  });

  it('says an emptied field is required only where the page asks for it, and can go without the hint', async () => {
    const calls = server();
    render(
      <>
        <NewPasswordField required label="Required" />
        <NewPasswordField label="Optional" hint={false} />
      </>,
    );
    expect(screen.getAllByText(PASSWORD_MESSAGES.hint)).toHaveLength(1);
    for (const label of ['Required', 'Optional']) {
      const field = screen.getByLabelText(label);
      fireEvent.change(field, { target: { value: 'x' } });
      await type(field, '');
    }
    expect(screen.getAllByText(ACCOUNT_ENTRY_MESSAGES.required)).toHaveLength(1);
    expect(screen.getByLabelText('Required').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Optional').getAttribute('aria-invalid')).toBeNull();
    expect(calls).toEqual([]);
  });
});
