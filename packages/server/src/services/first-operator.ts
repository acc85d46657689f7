/**
 * The first operator's set-up (docs/decisions.md "The first operator, from the browser"). While no
 * account has the admin role, the start asks for a one-time token (`open`), prints a link with it, and the page at
 * that link creates the first admin. The token lives in this process only, is compared in constant time, is spent
 * by its use and dies as soon as any admin exists (made here, by the command line or by another process).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ACCOUNT_ENTRY_MESSAGES, FIRST_OPERATOR_MESSAGES, firstOperatorSchema } from '@lectern/core';
import type { UserRow } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import type { UsersRepository } from '../repositories/users.ts';
import { randomToken } from '../util/random.ts';
import type { AccountsService } from './accounts.ts';

const digest = (token: string) => createHash('sha256').update(token).digest();

export class FirstOperatorService {
  /** sha256 of the live token; null when none is live */
  private live: Buffer | null = null;

  constructor(
    private readonly users: UsersRepository,
    private readonly accounts: AccountsService,
  ) {}

  /** A new one-time token (any earlier one dies) while no admin exists; null once one does. */
  async open(): Promise<string | null> {
    if (await this.users.anyAdmin()) {
      this.live = null;
      return null;
    }
    const token = randomToken();
    this.live = digest(token);
    return token;
  }

  /** Whether this token is the live one and no admin exists yet (an admin made elsewhere kills it). */
  async isLive(token: string): Promise<boolean> {
    if (!this.matches(token)) return false;
    if (await this.users.anyAdmin()) {
      this.live = null;
      return false;
    }
    return true;
  }

  /**
   * Creates the first admin: 404 unless the token is live; 400 naming the field for bad input, registration's rules
   * and words, and then the token stays live for another try. The token is spent before the account is written, so
   * two submissions at once make one admin.
   */
  async create(input: unknown): Promise<UserRow> {
    const token = input && typeof input === 'object' ? (input as { token?: unknown }).token : undefined;
    if (typeof token !== 'string' || !(await this.isLive(token))) throw new AppError(404, FIRST_OPERATOR_MESSAGES.linkDead);
    const parsed = firstOperatorSchema.safeParse(input);
    if (!parsed.success) {
      const errors: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) (errors[String(issue.path[0] ?? 'non_field_errors')] ??= []).push(issue.message);
      throw badRequest(Object.values(errors).flat().join(' '), errors);
    }
    const spent = this.live;
    this.live = null;
    try {
      const row = await this.accounts.prepareUser({ email: parsed.data.email, password: parsed.data.password, role: 'admin', status: 'subscriber' }, ACCOUNT_ENTRY_MESSAGES.emailTaken);
      const user = await this.users.insert(row);
      if (!user) throw badRequest(ACCOUNT_ENTRY_MESSAGES.emailTaken, { email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
      return user;
    } catch (err) {
      // bad input changed nothing: the same link may be used again
      if (this.live === null) this.live = spent;
      throw err;
    }
  }

  private matches(token: string): boolean {
    return this.live !== null && token.length > 0 && token.length <= 200 && timingSafeEqual(digest(token), this.live);
  }
}
