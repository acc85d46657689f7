/**
 * The one new-password field (registration, team join, first operator, reset, account): checked by the server
 * 300 ms after the last key (library-playlists-account.md §5), the server's words under it when it is refused and
 * "Looks good!" when it is not. Errors the page has (from sending the form) win over the live check's.
 */
import { ACCOUNT_ENTRY_MESSAGES, PASSWORD_CHECK_DEBOUNCE_MS, PASSWORD_MESSAGES } from '@lectern/core';
import { useEffect } from 'react';
import { api } from '../api/client.ts';
import { TextField } from '../components/TextField.tsx';
import { type LiveCheck, useLiveCheck } from './useLiveCheck.ts';

export interface NewPasswordFieldProps {
  /** the field's label; default "Password" */
  label?: string;
  /** the form field's name; default "password" */
  name?: string;
  /** the email the password must not be, read when the server is asked (empty when the server knows it) */
  email?: () => string;
  /** the page's errors for this field (a sent form's answer); shown instead of the live check's */
  errors?: readonly string[] | undefined;
  /** every value typed (the page forgets its errors for the field here) */
  onValue?: (value: string) => void;
  /** the live check's result, as it changes (a page that gates sending on it, or confirms against it) */
  onResult?: (result: LiveCheck) => void;
  /** §5's required field: an emptied field says so at once (registration) */
  required?: boolean;
  /** the hint under the label; default the password rule's hint, false for none */
  hint?: false;
  /** for a controlled field */
  value?: string;
}

export function NewPasswordField({ label = 'Password', name = 'password', email, errors, onValue, onResult, required, hint, value }: NewPasswordFieldProps) {
  const check = useLiveCheck(async (typed, signal) => {
    const answer = await api.checkPassword(typed, email?.() ?? '', signal);
    return { ok: answer.valid, message: answer.valid ? ACCOUNT_ENTRY_MESSAGES.looksGood : answer.msg };
  }, PASSWORD_CHECK_DEBOUNCE_MS);
  const { result } = check;
  useEffect(() => {
    onResult?.(result);
  }, [result, onResult]);

  const pageErrors = errors?.length ? errors : undefined;
  return (
    <>
      <TextField
        label={label}
        name={name}
        type="password"
        autoComplete="new-password"
        required={required}
        hint={hint === false ? undefined : PASSWORD_MESSAGES.hint}
        value={value}
        onChange={(e) => {
          const typed = e.currentTarget.value;
          onValue?.(typed);
          if (typed) check.check(typed);
          else check.reset(required ? { state: 'error', message: ACCOUNT_ENTRY_MESSAGES.required } : { state: 'idle' });
        }}
        errors={pageErrors ?? (result.state === 'error' ? [result.message] : undefined)}
      />
      {result.state === 'ok' && !pageErrors ? (
        <p className="register__good" role="status">
          {result.message}
        </p>
      ) : null}
    </>
  );
}
