/**
 * "Forgot password" (docs/decisions.md "Joining"): a one-time link that works for an hour. Asking answers the same
 * whether or not an account uses the address (no enumeration beyond the per-address limit), and the link is built from
 * the configured PUBLIC_URL, never from the request's Host header (which an attacker could set to send the token to
 * their site). Using it sets the new password and signs the account out everywhere. The mail goes after the answer
 * (services/mailer.ts MailOutbox): waiting for the mail server would make the answer slower for a known address.
 */
import { ACCOUNT_ENTRY_MESSAGES, accountEntryPaths, PASSWORD_RESET_TTL_MS, passwordProblem } from '@lectern/core';
import { badRequest } from '../errors.ts';
import type { PasswordResetsRepository } from '../repositories/password-resets.ts';
import type { SessionsRepository } from '../repositories/sessions.ts';
import type { UsersRepository } from '../repositories/users.ts';
import { randomToken } from '../util/random.ts';
import { isCommonPassword } from './common-passwords.ts';
import type { Email, MailOutbox } from './mailer.ts';
import { hashPassword } from './passwords.ts';
import { sha256 } from './tokens.ts';

export class PasswordResetService {
  constructor(
    private readonly users: UsersRepository,
    private readonly resets: PasswordResetsRepository,
    private readonly sessions: SessionsRepository,
    private readonly outbox: MailOutbox,
    private readonly publicUrl: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Queues the link if an account uses `email`; resolves at once, the same either way: the lookup, the stored link and
   * the mail all come after the answer, in the outbox's order (a failure is logged by the outbox), so no statement
   * the answer waits for depends on whether the account exists.
   */
  async request(email: string): Promise<void> {
    void this.outbox.postWritten(() => this.issue(email), { to: email.trim(), subject: ACCOUNT_ENTRY_MESSAGES.resetEmailSubject, text: '' });
  }

  /**
   * The operators' "send a reset link" (the console, the command line): they know the account exists, so they wait
   * for the mail server, and hear when it refused.
   */
  async requestAndWait(email: string): Promise<void> {
    const mail = await this.issue(email);
    if (mail && !(await this.outbox.post(mail))) throw new Error(`the mail server did not take the reset link for ${mail.to}`);
  }

  /** Stores a new link for the account using `email` (the older one is dropped) and writes its mail; none without one. */
  private async issue(email: string): Promise<Email | null> {
    const user = await this.users.findByEmail(email.trim());
    if (!user) return null;
    const token = randomToken(32);
    const now = this.now();
    await this.resets.deleteForUser(user.id);
    await this.resets.insert({
      token_hash: sha256(token),
      user_id: user.id,
      expires_at: new Date(now.getTime() + PASSWORD_RESET_TTL_MS).toISOString(),
      created_at: now.toISOString(),
    });
    const link = new URL(accountEntryPaths.resetPasswordPage(token), this.publicUrl).toString();
    return { to: user.email, subject: ACCOUNT_ENTRY_MESSAGES.resetEmailSubject, text: ACCOUNT_ENTRY_MESSAGES.resetEmailText(link) };
  }

  async isLive(token: string): Promise<boolean> {
    return (await this.resets.liveUser(sha256(token), this.now().toISOString())) !== undefined;
  }

  /** Uses the link once: the new password (the one rule), every session signed out. */
  async confirm(token: string, newPassword: string): Promise<void> {
    const dead = () => badRequest(ACCOUNT_ENTRY_MESSAGES.resetLinkDead, { token: [ACCOUNT_ENTRY_MESSAGES.resetLinkDead] });
    const hash = sha256(token);
    const owner = await this.resets.liveUser(hash, this.now().toISOString());
    const user = owner === undefined ? undefined : await this.users.findById(owner);
    if (!user) throw dead();
    // The rule is checked before the link is spent: a weak password does not cost the reader their link.
    const problem = passwordProblem(newPassword, user.email, isCommonPassword);
    if (problem) throw badRequest(problem, { new_password: [problem] });
    // Spent in one statement: of two clicks on one link, one resets.
    const userId = await this.resets.use(hash, this.now().toISOString());
    if (userId === undefined) throw dead();
    await this.users.update(userId, { password_hash: await hashPassword(newPassword) });
    await this.sessions.deleteForUser(userId);
  }
}
