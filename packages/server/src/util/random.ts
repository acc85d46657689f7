/** Random tokens: below every layer, so storage may name temporary files and services may issue secrets. */
import { randomBytes } from 'node:crypto';

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
