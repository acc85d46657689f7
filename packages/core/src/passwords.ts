/**
 * The one password rule, shared by the server (accounts service) and the operators' command line: at least
 * PASSWORD_MIN_LENGTH characters, not the account's email (nor its part before the @), not a common password.
 * COMMON_PASSWORDS is a short list of the most used ones for now (lower-case; compared case-insensitively).
 */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './constants.ts';
import { PASSWORD_MESSAGES } from './messages.ts';

export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '12345678', '123456789', '1234567890', '0123456789', '87654321', '11111111', '00000000', '88888888', '12341234',
  '11223344', '12121212', '123123123', '147258369', '987654321', 'password', 'password1', 'password12', 'password123',
  'passw0rd', 'p@ssw0rd', 'p@ssword', 'qwertyui', 'qwerty123', 'qwertyuiop', 'qwerty12', '1q2w3e4r', '1qaz2wsx',
  'zaq12wsx', 'asdfghjk', 'asdfasdf', 'zxcvbnm1', 'iloveyou', 'iloveyou1', 'sunshine', 'princess', 'football',
  'baseball', 'superman', 'trustno1', 'welcome1', 'welcome123', 'letmein1', 'letmein123', 'abc12345', 'abcd1234',
  'aa123456', 'changeme', 'computer', 'starwars', 'whatever', 'dragon12', 'monkey12', 'master12', 'michael1',
  'jennifer', 'jordan23', 'liverpool', 'chocolate', 'admin123', 'administrator', 'lectern1', 'lectern123',
]);

/**
 * Why a password may not be used, or null when it may. `isCommon` is told the lower-cased password: the server
 * passes its list of the 10,000 most used passwords (too large for the web app, which asks the server instead).
 */
export function passwordProblem(
  password: string,
  email?: string | null,
  isCommon: (lowerCased: string) => boolean = (l) => COMMON_PASSWORDS.has(l),
): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return PASSWORD_MESSAGES.tooShort;
  if (password.length > PASSWORD_MAX_LENGTH) return PASSWORD_MESSAGES.tooLong;
  const lower = password.toLowerCase();
  const address = email?.trim().toLowerCase();
  if (address && (lower === address || lower === address.split('@')[0])) return PASSWORD_MESSAGES.isEmail;
  if (COMMON_PASSWORDS.has(lower) || isCommon(lower)) return PASSWORD_MESSAGES.common;
  return null;
}
