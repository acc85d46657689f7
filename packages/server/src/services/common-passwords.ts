/**
 * The 10,000 most used passwords (docs/decisions.md "Joining", "Common passwords"), from the frequency-ranked list that
 * zxcvbn-ts ships (@zxcvbn-ts/language-common, MIT; built from leaked-password corpora), lower-cased. Loaded on first
 * use.
 */
import { createRequire } from 'node:module';
import type * as Common from '@zxcvbn-ts/language-common';

export const COMMON_PASSWORD_COUNT = 10_000;

let common: ReadonlySet<string> | null = null;

function list(): ReadonlySet<string> {
  if (!common) {
    // the package too (a CommonJS one, so at once): a process that checks no password never reads its lists
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as typeof Common;
    const ranked = (dictionary as Record<string, readonly string[]>)['passwords-common'] ?? [];
    if (ranked.length < COMMON_PASSWORD_COUNT) throw new Error('the common-password list is missing or short');
    common = new Set(ranked.slice(0, COMMON_PASSWORD_COUNT).map((p) => p.toLowerCase()));
  }
  return common;
}

export function isCommonPassword(lowerCased: string): boolean {
  return list().has(lowerCased);
}
