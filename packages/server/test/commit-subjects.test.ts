/**
 * Commit messages as the house rules ask (docs/decisions.md "Commit messages"): a subject of at most 72 characters,
 * and when there is a body, a blank line between it and the subject (what `git log --oneline`, `git shortlog` and
 * mail tools take as the subject is the first paragraph). Checked for every commit after BASE only.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * main's head when the check was added (2026-11-29). The history before it is not rewritten (it is shared and
 * landed), so its longer subjects stay; every commit after it is held to the rule.
 */
const BASE = '3d6ce0cd8bdcf87a2e7e62536f7cba73a8de906e';
const MAX_SUBJECT = 72;

const root = path.resolve(import.meta.dirname, '../../..');

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why the check cannot run here (no git, not a clone, a shallow clone without BASE), or null when it can. */
function unavailable(): string | null {
  try {
    git('rev-parse', '--git-dir');
  } catch {
    return 'git is absent or this is not a git checkout';
  }
  try {
    git('cat-file', '-e', `${BASE}^{commit}`);
  } catch {
    return `the base commit ${BASE.slice(0, 12)} is not in this clone (a shallow clone?)`;
  }
  try {
    git('merge-base', '--is-ancestor', BASE, 'HEAD');
  } catch {
    return `HEAD does not descend from the base commit ${BASE.slice(0, 12)}`;
  }
  return null;
}

/** What is wrong with one commit message, or null. */
export function messageFaults(message: string): string | null {
  const lines = message.replace(/\n+$/, '').split('\n');
  const subject = lines[0] ?? '';
  if (subject.trim() === '') return 'an empty subject';
  if ([...subject].length > MAX_SUBJECT) return `a subject of ${[...subject].length} characters (at most ${MAX_SUBJECT})`;
  if (lines.length > 1 && lines[1] !== '') return 'no blank line between the subject and the body';
  return null;
}

describe('commit messages', () => {
  it('finds what is wrong with a message', () => {
    expect(messageFaults('Short subject\n')).toBeNull();
    expect(messageFaults('Short subject\n\nWhy, at length.\nMore.\n')).toBeNull();
    expect(messageFaults(`${'x'.repeat(72)}\n`)).toBeNull();
    expect(messageFaults(`${'x'.repeat(73)}\n`)).toBe('a subject of 73 characters (at most 72)');
    expect(messageFaults('Subject\nbody straight after\n')).toBe('no blank line between the subject and the body');
    expect(messageFaults('\n\nbody\n')).toBe('an empty subject');
  });

  it(`every commit after ${BASE.slice(0, 7)}: a subject of at most ${MAX_SUBJECT} characters, a blank line before a body`, (ctx) => {
    const reason = unavailable();
    if (reason) {
      console.warn(`[commit messages] not checked: ${reason}`);
      ctx.skip();
      return;
    }
    // NUL between the hash and the message, and after each message: a message may hold any other character
    const log = git('log', '--format=%H%x00%B%x00', `${BASE}..HEAD`);
    const faults: string[] = [];
    const parts = log.split('\0');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const hash = parts[i]!.trim();
      const message = parts[i + 1]!;
      const fault = messageFaults(message);
      if (fault) faults.push(`${hash.slice(0, 7)} "${message.split('\n')[0]}": ${fault}`);
    }
    expect(faults).toEqual([]);
  });
});
