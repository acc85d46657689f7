/** Users and teams: the only place that reads or writes their rows. */
import type { Kysely } from 'kysely';
import type { Database, NewUser, UserRow, UserUpdate } from '../db/schema.ts';
import { unlessTaken } from './conflicts.ts';

export class UsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The new account; undefined when the email is taken (the unique email settles two at once). */
  insert(user: NewUser): Promise<UserRow | undefined> {
    return this.db.insertInto('users').values(user).onConflict((oc) => oc.column('email').doNothing()).returningAll().executeTakeFirst();
  }

  async update(id: number, changes: UserUpdate): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  /** False when another account has the address (the unique email settles two changes at once). */
  async setEmail(id: number, email: string): Promise<boolean> {
    return (await unlessTaken(this.db.updateTable('users').set({ email }).where('id', '=', id).execute())) !== undefined;
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Whether any account has the admin role (the first operator's set-up is open only while none does). */
  async anyAdmin(): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').where('is_admin', '=', 1).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async teamName(teamId: number | null): Promise<string | null> {
    if (teamId === null) return null;
    const row = await this.db.selectFrom('teams').select('name').where('id', '=', teamId).executeTakeFirst();
    return row?.name ?? null;
  }

  /**
   * The team of that name, created when missing. Only teams no one bought (no owner): a team with seats is joined
   * through its invitations, which count its seats (docs/decisions.md "Teams").
   */
  async ensureTeam(name: string, now: string): Promise<number> {
    const found = await this.db.selectFrom('teams').select('id').where('name', '=', name).where('owner_id', 'is', null).executeTakeFirst();
    if (found) return found.id;
    const row = await this.db.insertInto('teams').values({ name, created_at: now }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }
}
