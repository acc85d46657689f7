/** argon2id with the OWASP minimum parameters DESIGN.md fixes (m=19456 KiB, t=2, p=1). */
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id is an ambient const enum (unusable under isolatedModules); its value is 2.
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** Verified against when the email is unknown, so a wrong email costs as long as a wrong password. */
let dummyHash: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('lectern-timing-equaliser');
  return dummyHash;
}
