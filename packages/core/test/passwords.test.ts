import { describe, expect, it } from 'vitest';
import { PASSWORD_MESSAGES } from '../src/messages.ts';
import { passwordProblem } from '../src/passwords.ts';

describe('passwordProblem', () => {
  it('accepts a long, uncommon password that is not the email', () => {
    expect(passwordProblem('violet-harbour-42', 'ops@example.com')).toBeNull();
  });
  it('refuses fewer than 8 characters', () => {
    expect(passwordProblem('seven77', 'ops@example.com')).toBe(PASSWORD_MESSAGES.tooShort);
  });
  it('refuses the email address and its local part, in any case', () => {
    expect(passwordProblem('Ops.Team@Example.com', 'ops.team@example.com')).toBe(PASSWORD_MESSAGES.isEmail);
    expect(passwordProblem('OPS.TEAM', 'ops.team@example.com')).toBe(PASSWORD_MESSAGES.isEmail);
    expect(passwordProblem('operations', 'operations@example.com')).toBe(PASSWORD_MESSAGES.isEmail);
  });
  it('refuses common passwords, in any case', () => {
    expect(passwordProblem('password', 'ops@example.com')).toBe(PASSWORD_MESSAGES.common);
    expect(passwordProblem('Password123', 'ops@example.com')).toBe(PASSWORD_MESSAGES.common);
    expect(passwordProblem('12345678')).toBe(PASSWORD_MESSAGES.common);
  });
});
