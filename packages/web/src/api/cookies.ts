/**
 * Reading the two cookies the server makes readable on purpose: `logged_in` (whether to ask for the profile at
 * all) and `csrftoken` (echoed in the X-CSRFToken header and in the no-JS login form). The session cookie itself
 * is HttpOnly and never visible here.
 */
import { COOKIES } from '@lectern/core';

/**
 * The request's Cookie header while the server renders a page's first screen (ssr.tsx): what `document.cookie`
 * says in the browser, so the render signed in on the server is the one the browser hydrates.
 */
let serverCookies: string | null = null;
export function setServerCookies(header: string | null): void {
  serverCookies = header;
}

export function readCookie(name: string): string | null {
  const all = typeof document === 'undefined' ? serverCookies : document.cookie;
  if (all === null) return null;
  for (const part of all.split(';')) {
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
