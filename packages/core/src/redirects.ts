/**
 * The one rule for where a sign-in may send a person next (`next`), used by the server's form handling and the
 * web app's sign-in page alike.
 */

/** Control characters: a newline would split a Location header, and browsers drop tabs and newlines inside URLs ("/\t/evil" becomes "//evil"). */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The longest `next` kept; longer ones fall back. */
export const NEXT_MAX_LENGTH = 2000;

export const hasControlCharacter = (value: string): boolean => CONTROL.test(value);

/**
 * A path on this site only: it starts with a single "/" and not "//" (protocol-relative) or "/\" (which browsers
 * treat like "//"); so no scheme, no host, no "\/" either. Control characters make it the fallback; other characters
 * outside printable ASCII are percent-encoded so a Location header can carry it. Anything else is the fallback.
 */
export function safeNextPath(next: unknown, fallback = '/library/'): string {
  if (typeof next !== 'string' || next.length > NEXT_MAX_LENGTH || !/^\/(?![/\\])/.test(next) || hasControlCharacter(next)) return fallback;
  try {
    return next.replace(/[^\u0021-\u007e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return fallback; // a lone surrogate cannot be encoded
  }
}

/**
 * An absolute http: or https: address: a host, then an optional path, query or fragment, no spaces (where a live
 * session's 'Join now' may lead; checked by the admin API and again by the web app before it links).
 */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/i.test(value);
}
