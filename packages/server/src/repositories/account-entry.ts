/** Joining: a registered account and its first history entry, the account history, the topics a reader chose. */
import type { Kysely } from 'kysely';
import type { Database, NewUser, UserRow } from '../db/schema.ts';
import { onPostgres, unlessTaken } from './conflicts.ts';

/** History events of an account leaving a team (services/teams.ts): their detail is the team's name. */
const TEAM_DEPARTURES = ['team_removed', 'team_left'] as const;

export interface HistoryEntry {
  event: string;
  from_status: string | null;
  to_status: string | null;
  detail?: string;
}

export class AccountEntryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The account and its 'registered' entry, together or not at all; undefined when the email is taken (the unique
   * email makes a second registration, even one racing the first, fail whole).
   */
  insertUser(user: NewUser, entry: HistoryEntry): Promise<UserRow | undefined> {
    const write = this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
      await trx
        .insertInto('account_history')
        .values({ user_id: row.id, ...entry, detail: entry.detail ?? '', at: user.created_at })
        .execute();
      return row;
    });
    return unlessTaken(write);
  }

  emailExists(email: string): Promise<boolean> {
    return this.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst()
      .then((r) => r !== undefined);
  }

  history(userId: number): Promise<(HistoryEntry & { at: string })[]> {
    return this.db
      .selectFrom('account_history')
      .select(['event', 'from_status', 'to_status', 'detail', 'at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /**
   * The team the account last left or was removed from, when nothing has given it reading since (its own
   * subscription, another team); else null. Asked only when a chapter is refused, to say why in the right words.
   */
  async teamLeftSince(userId: number): Promise<string | null> {
    const last = await this.db
      .selectFrom('account_history')
      .select(['event', 'detail'])
      .where('user_id', '=', userId)
      .where('event', 'in', [...TEAM_DEPARTURES, 'subscribed', 'plan_changed', 'reactivated', 'renewed', 'team_joined', 'team_restored'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return last && (TEAM_DEPARTURES as readonly string[]).includes(last.event) ? last.detail : null;
  }

  /** The topics with these slugs (unknown slugs are simply absent). */
  topicsBySlug(slugs: readonly string[]): Promise<{ id: number; slug: string; name: string }[]> {
    if (slugs.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('topics').select(['id', 'slug', 'name']).where('slug', 'in', [...slugs]).execute();
  }

  chosenTopics(userId: number): Promise<{ slug: string; name: string }[]> {
    return this.db
      .selectFrom('user_topics')
      .innerJoin('topics', 'topics.id', 'user_topics.topic_id')
      .select(['topics.slug', 'topics.name'])
      .where('user_topics.user_id', '=', userId)
      .orderBy('topics.name')
      .execute();
  }

  /** Replaces the reader's chosen topics in one transaction. */
  async chooseTopics(userId: number, topicIds: readonly number[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Two replacements at once run one after the other on PostgreSQL (the account's row is the lock): each would
      // otherwise delete what it sees and insert into the other's rows (SQLite writes one transaction at a time).
      if (onPostgres(trx)) await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
      await trx.deleteFrom('user_topics').where('user_id', '=', userId).execute();
      if (topicIds.length) {
        await trx
          .insertInto('user_topics')
          .values(topicIds.map((topic_id) => ({ user_id: userId, topic_id, chosen_at: now })))
          .execute();
      }
    });
  }
}
