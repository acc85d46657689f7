/**
 * Reading the two cookies the server makes readable on purpose: `logged_in` (whether to ask for the profile at
 * all) and `csrftoken` (echoed in the X-CSRFToken header and in the no-JS login form). The session cookie itself
 * is HttpOnly and never visible here.
 */
import { COOKIES } from '@lectern/core';

export function readCookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}

export const csrfToken = (): string | null => readCookie(COOKIES.csrf);

/** True when the server's readable `logged_in` cookie says a session exists (it may still have expired). */
export const hasLoginCookie = (): boolean => {
  const v = readCookie(COOKIES.loggedIn);
  return v !== null && v !== '' && v !== '0';
};
