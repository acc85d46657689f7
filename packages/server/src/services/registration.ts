/**
 * Joining (docs/decisions.md "Joining"): the email check, the password check, registration into a free trial and the
 * topics a new reader picks. Registration writes the account and its history entry together; a second registration of
 * the same email (even one racing the first) is refused with the field named.
 */
import {
  ACCOUNT_ENTRY_MESSAGES,
  ONBOARDING_LOCATION,
  passwordProblem,
  registrationSchema,
  type RegistrationResponse,
} from '@lectern/core';
import { z } from 'zod';
import type { UserRow } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import type { AccountEntryRepository } from '../repositories/account-entry.ts';
import type { AccountsService } from './accounts.ts';
import { isCommonPassword } from './common-passwords.ts';

const emailShape = z.string().email();

export class RegistrationService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly entry: AccountEntryRepository,
    private readonly trialDays: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** §3 "Email check response": success when the address has the right shape and no account uses it. */
  async emailCheck(raw: string): Promise<{ success: boolean; message: string }> {
    const email = raw.trim().toLowerCase();
    if (!email) return { success: false, message: ACCOUNT_ENTRY_MESSAGES.required };
    if (email.length > 254 || !emailShape.safeParse(email).success) return { success: false, message: ACCOUNT_ENTRY_MESSAGES.emailShape };
    if (await this.entry.emailExists(email)) return { success: false, message: ACCOUNT_ENTRY_MESSAGES.emailTaken };
    return { success: true, message: ACCOUNT_ENTRY_MESSAGES.emailFree };
  }

  /** §3 "Password check response": the one password rule (core), with the server's list of common passwords. */
  passwordCheck(password: string, email?: string): { valid: boolean; msg: string } {
    if (!password) return { valid: false, msg: ACCOUNT_ENTRY_MESSAGES.required };
    const problem = passwordProblem(password, email, isCommonPassword);
    return problem ? { valid: false, msg: problem } : { valid: true, msg: ACCOUNT_ENTRY_MESSAGES.looksGood };
  }

  /** A new trial account, signed in by the caller; 400 `{errors: {field: [..]}}` naming every field that is wrong. */
  async register(input: unknown): Promise<{ user: UserRow; response: RegistrationResponse }> {
    const parsed = registrationSchema.safeParse(input ?? {});
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (!parsed.success) for (const issue of parsed.error.issues) add(String(issue.path[0] ?? 'non_field_errors'), issue.message);
    const email = parsed.success ? parsed.data.email : null;
    if (email && !errors.email) {
      const check = await this.emailCheck(email);
      if (!check.success) add('email', check.message);
    }
    if (parsed.success && !errors.password) {
      const check = this.passwordCheck(parsed.data.password, email ?? undefined);
      if (!check.valid) add('password', check.msg);
    }
    if (!parsed.success || Object.keys(errors).length) throw badRequest(Object.values(errors).flat().join(' '), errors);
    const { password, plan } = parsed.data;
    // the check above can lose to a registration of the same email at once: prepareUser's look, or else the unique
    // email, refuses the second, in the words of the check
    const taken = ACCOUNT_ENTRY_MESSAGES.emailTaken;
    const row = await this.accounts.prepareUser({ email: parsed.data.email, password, status: 'trial', trialDays: this.trialDays, plan }, taken);
    const user = await this.entry.insertUser(row, { event: 'registered', from_status: null, to_status: 'trial', detail: `plan ${plan}` });
    if (!user) throw badRequest(taken, { email: [taken] });
    return { user, response: { userId: user.uuid, onboardingLocation: ONBOARDING_LOCATION, trial_ends_at: user.trial_ends_at } };
  }

  chosenTopics(user: UserRow) {
    return this.entry.chosenTopics(user.id);
  }

  /** The onboarding form: replaces the reader's topics; an unknown slug is a 400 naming `topics`, and nothing changes. */
  async chooseTopics(user: UserRow, slugs: readonly string[]) {
    const wanted = [...new Set(slugs.map((s) => s.trim()).filter(Boolean))];
    const found = await this.entry.topicsBySlug(wanted);
    const unknown = wanted.find((slug) => !found.some((t) => t.slug === slug));
    if (unknown !== undefined) throw new AppError(400, ACCOUNT_ENTRY_MESSAGES.unknownTopic(unknown), { topics: [ACCOUNT_ENTRY_MESSAGES.unknownTopic(unknown)] });
    await this.entry.chooseTopics(user.id, found.map((t) => t.id), this.now().toISOString());
    return this.entry.chosenTopics(user.id);
  }

  history(user: UserRow) {
    return this.entry.history(user.id);
  }
}
