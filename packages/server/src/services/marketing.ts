/**
 * The marketing modules of library-playlists-account.md §2 (docs/decisions.md "The marketing modules"):
 * - the newsletter of what is new: readers opt in (home) and out (account page, or the mail's link without signing
 *   in); `runDue` is the scheduled job, sending at most one issue per NEWSLETTER_DAYS through the mailer (SMTP, or
 *   the log) that lists the titles added since the last issue;
 * - the home blocks a reader dismissed for good (the tutorial, the newsletter promo);
 * - a title's buy link from the operator's BUY_LINK_TEMPLATE.
 */
import {
  type TransformationOwnList,
  buyLinkOf,
  type HomeModule,
  type HomeModules,
  MARKETING_MESSAGES,
  marketingPaths,
  maskEmail,
  NEWSLETTER_LINK_DAYS,
  NEWSLETTER_MAX_TITLES,
  type NewsletterSample,
  paths,
  type UnsubscribeState,
  TRANSFORMATION_TITLES_SHOWN,
  type TransformationPlaylist,
} from '@lectern/core';
import { AppError } from '../errors.ts';
import { assertContentRole } from '../policies/admin.ts';
import type { Viewer } from '../policies/reading.ts';
import type { CatalogService } from './catalog.ts';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { fieldError } from '../errors.ts';
import type { MarketingRepository } from '../repositories/marketing.ts';
import type { UsersRepository } from '../repositories/users.ts';
import type { Mailer } from './mailer.ts';
import { SignedTokens } from './signed-tokens.ts';

const DAY_MS = 86_400_000;
/** How often the job looks whether an issue is due (it sends only when NEWSLETTER_DAYS have passed). */
export const NEWSLETTER_CHECK_INTERVAL_MS = 60 * 60_000;
/** Subscribers read per batch while sending. */
const BATCH = 200;

export interface NewsletterRun {
  /** the issue sent (null: none was due, or another process sent it) */
  issueId: number | null;
  titles: number;
  recipients: number;
}

export class MarketingService {
  private readonly tokens: SignedTokens;

  constructor(
    private readonly repo: MarketingRepository,
    private readonly users: Pick<UsersRepository, 'findById'>,
    private readonly mailer: Mailer,
    secret: string,
    private readonly options: { publicUrl: string; everyDays: number; buyLinkTemplate: string | null },
    private readonly cards: Pick<CatalogService, 'cards'>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.tokens = new SignedTokens(secret, 'newsletter-unsubscribe');
  }

  async homeModules(user: Pick<UserRow, 'id'> | null): Promise<HomeModules> {
    if (!user) return { newsletter: null, dismissed: [] };
    const [subscribed, dismissed] = await Promise.all([this.repo.isSubscribed(user.id), this.repo.dismissed(user.id)]);
    return { newsletter: { subscribed, every_days: this.options.everyDays }, dismissed: dismissed as HomeModule[] };
  }

  async dismiss(user: Pick<UserRow, 'id'>, module: HomeModule): Promise<void> {
    await this.repo.dismiss(user.id, module, this.now().toISOString());
  }

  async setSubscribed(user: Pick<UserRow, 'id'>, subscribed: boolean): Promise<{ subscribed: boolean }> {
    if (subscribed) await this.repo.subscribe(user.id, this.now().toISOString());
    else await this.repo.unsubscribe(user.id);
    return { subscribed };
  }

  /** The next issue as it stands: the titles added since the last one (the promo's sample). */
  async sample(): Promise<NewsletterSample> {
    const now = this.now();
    const since = await this.sinceOf(now);
    const { titles, total } = await this.repo.titlesAdded(since, now.toISOString(), NEWSLETTER_MAX_TITLES);
    return { titles: titles.map((t) => ({ book_id: t.book_id, title: t.title, url: paths.titlePage(t.book_id) })), total, since };
  }

  /** An unsubscribe token for one reader, valid NEWSLETTER_LINK_DAYS from `at` (the mail's sending). */
  unsubscribeToken(userId: number, at: Date): string {
    return this.tokens.seal([userId, Math.floor((at.getTime() + NEWSLETTER_LINK_DAYS * DAY_MS) / 1000)]);
  }

  async unsubscribeState(token: string): Promise<UnsubscribeState> {
    const user = await this.userOf(token);
    return { email: maskEmail(user.email), subscribed: await this.repo.isSubscribed(user.id) };
  }

  /** One click, no sign-in: the token is the authority. Idempotent. */
  async unsubscribe(token: string): Promise<UnsubscribeState> {
    const user = await this.userOf(token);
    await this.repo.unsubscribe(user.id);
    return { email: maskEmail(user.email), subscribed: false };
  }

  /**
   * The scheduled job: when NEWSLETTER_DAYS have passed since the last issue (or none was ever sent), claims the
   * next issue (one per period whichever process runs first) and mails the titles added since to every subscriber.
   * No new titles: the period is recorded and nobody gets an empty mail.
   */
  async runDue(now: Date = this.now(), options: { force?: boolean } = {}): Promise<NewsletterRun> {
    const last = await this.repo.lastIssue();
    // force: the operator's "send one now" (the command line); still one issue after the last, whoever claims it
    if (!options.force && last && now.getTime() - Date.parse(last.sent_at) < this.options.everyDays * DAY_MS) return { issueId: null, titles: 0, recipients: 0 };
    const since = await this.sinceOf(now, last);
    const { titles, total } = await this.repo.titlesAdded(since, now.toISOString(), NEWSLETTER_MAX_TITLES);
    const issue = await this.repo.claimIssue({ follows_issue_id: last?.id ?? 0, sent_at: now.toISOString(), since, title_count: total, recipient_count: 0 });
    if (!issue || total === 0) return { issueId: issue?.id ?? null, titles: total, recipients: 0 };
    let sent = 0;
    const failures: string[] = [];
    for (let after = 0; ; ) {
      const batch = await this.repo.subscribers(after, BATCH);
      if (batch.length === 0) break;
      for (const reader of batch) {
        try {
          await this.mailer.send(this.issueMail(reader, titles, total, now));
          sent++;
        } catch (err) {
          failures.push(`${reader.email}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      after = batch[batch.length - 1]!.id;
    }
    await this.repo.setRecipients(issue.id, sent);
    // the console's health page shows the job failed, and why (the issue stays sent to the others)
    if (failures.length) throw new Error(`newsletter not delivered to ${failures.length} of ${sent + failures.length}: ${failures[0]}`);
    return { issueId: issue.id, titles: total, recipients: sent };
  }

  /** The buy link of a title, absent when BUY_LINK_TEMPLATE is unset (or asks for an ISBN the title lacks). */
  buyLink(title: { identifier: string | null; title: string; authors: readonly string[]; book_id: string }): string | null {
    return buyLinkOf(this.options.buyLinkTemplate, title);
  }

  // ---- editors' transformation playlists ----

  /** An editor (admin or content creator) publishes one of their own playlists under a topic (again: moves it). */
  async publishPlaylist(user: UserRow | null, collectionId: string, topicSlug: string): Promise<void> {
    assertContentRole(user);
    const own = await this.repo.ownCollection(user!.id, collectionId);
    if (!own) throw new AppError(404, MARKETING_MESSAGES.transformationNotFound);
    if (own.is_default) throw fieldError('collection', MARKETING_MESSAGES.transformationDefault);
    const topic = await this.repo.topicBySlug(topicSlug);
    if (!topic) throw fieldError('topic', MARKETING_MESSAGES.unknownTopic(topicSlug));
    await this.repo.publishPlaylist(collectionId, topic.id, this.now().toISOString());
  }

  async unpublishPlaylist(user: UserRow | null, collectionId: string): Promise<void> {
    assertContentRole(user);
    const own = await this.repo.ownCollection(user!.id, collectionId);
    if (!own || !(await this.repo.unpublishPlaylist(collectionId))) throw new AppError(404, MARKETING_MESSAGES.transformationNotFound);
  }

  /** The console's list: the editor's own playlists, each with the topic it is published under (null: not). */
  async ownPlaylists(user: UserRow | null): Promise<TransformationOwnList> {
    assertContentRole(user);
    const rows = await this.repo.ownPlaylists(user!.id);
    return {
      results: rows.map((r) => ({ id: r.id, name: r.name, count: Number(r.count ?? 0), topic: r.topic_slug && r.topic_name ? { name: r.topic_name, slug: r.topic_slug } : null })),
    };
  }

  /** The published playlists, of one topic when a slug is given (an unknown one has none), as banners of cards. */
  async transformationPlaylists(topicSlug: string | null, limit: number, viewer: Viewer): Promise<TransformationPlaylist[]> {
    const topic = topicSlug === null ? null : await this.repo.topicBySlug(topicSlug);
    if (topic === undefined) return [];
    const playlists = await this.repo.transformationPlaylists(topic?.id ?? null, limit);
    const rows = await this.repo.playlistTitles(playlists.map((p) => p.id));
    const byPlaylist = new Map<string, TitleRow[]>();
    for (const row of rows) byPlaylist.set(row.collection_id, [...(byPlaylist.get(row.collection_id) ?? []), row]);
    const shown = playlists.map((p) => (byPlaylist.get(p.id) ?? []).slice(0, TRANSFORMATION_TITLES_SHOWN));
    const unique = [...new Map(shown.flat().map((t) => [t.id, t])).values()];
    const cards = new Map((await this.cards.cards(unique, viewer)).map((c, i) => [unique[i]!.id, c]));
    return playlists.map((p, i) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      topic: { name: p.topic_name, slug: p.topic_slug },
      curator: p.curator,
      titles: shown[i]!.map((t) => cards.get(t.id)!),
      count: byPlaylist.get(p.id)?.length ?? 0,
    }));
  }

  private issueMail(reader: { id: number; email: string }, titles: TitleRow[], total: number, now: Date) {
    const url = (path: string) => new URL(path, this.options.publicUrl).toString();
    const unsubscribe = url(marketingPaths.unsubscribePage(this.unsubscribeToken(reader.id, now)));
    const lines = [
      MARKETING_MESSAGES.mailIntro(total),
      '',
      ...titles.map((t) => `- ${t.title}\n  ${url(paths.titlePage(t.book_id))}`),
      ...(total > titles.length ? ['', MARKETING_MESSAGES.mailMore(total - titles.length, url('/library/?sort=recent'))] : []),
      '',
      '--',
      MARKETING_MESSAGES.mailFooter(unsubscribe),
    ];
    return { to: reader.email, subject: MARKETING_MESSAGES.mailSubject(total), text: lines.join('\n'), headers: { 'List-Unsubscribe': `<${unsubscribe}>` } };
  }

  /** Where the next issue starts: the last issue's sending, or one period back for the first. */
  private async sinceOf(now: Date, last?: { sent_at: string }): Promise<string> {
    const previous = last ?? (await this.repo.lastIssue());
    return previous ? previous.sent_at : new Date(now.getTime() - this.options.everyDays * DAY_MS).toISOString();
  }

  private async userOf(token: string): Promise<UserRow> {
    const values = this.tokens.open(token);
    const [userId, expires] = values ?? [];
    if (typeof userId !== 'number' || typeof expires !== 'number' || expires * 1000 < this.now().getTime()) throw fieldError('token', MARKETING_MESSAGES.badToken);
    const user = await this.users.findById(userId);
    if (!user) throw fieldError('token', MARKETING_MESSAGES.badToken);
    return user;
  }
}
