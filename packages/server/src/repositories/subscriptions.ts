/**
 * Plans, promotion codes, invoices and an account's subscription state. Every change of state is one transaction
 * with its account-history entry, and is made only from the state it expects (compare-and-set on the status), so
 * two clicks at once make one change, never two.
 */
import { type Kysely, sql } from 'kysely';
import type { Database, InvoiceRow, PlanRow, PromotionCodeRow, UserRow } from '../db/schema.ts';
import type { HistoryEntry } from './account-entry.ts';

export interface StateChange {
  userId: number;
  /** the change is made only while the stored status is one of these */
  fromStatuses: readonly UserRow['status'][];
  /** and only while the paid period still ends then (a renewal: two runners renew once) */
  whileEndsAt?: string;
  set: Partial<Pick<UserRow, 'status' | 'plan' | 'subscription_ends_at' | 'trial_ends_at'>>;
  history: HistoryEntry;
  at: string;
  invoice?: Omit<InvoiceRow, 'id' | 'user_id'>;
  /** a promotion code whose use is counted with the change (refused when it is used up by then) */
  promotionCode?: string;
}

export class SubscriptionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  plans(): Promise<PlanRow[]> {
    return this.db.selectFrom('plans').selectAll().orderBy('price_cents').execute();
  }

  plan(slug: string): Promise<PlanRow | undefined> {
    return this.db.selectFrom('plans').selectAll().where('slug', '=', slug).executeTakeFirst();
  }

  async setPlan(plan: PlanRow): Promise<void> {
    await this.db
      .insertInto('plans')
      .values(plan)
      .onConflict((oc) => oc.column('slug').doUpdateSet({ name: plan.name, price_cents: plan.price_cents, currency: plan.currency, period: plan.period }))
      .execute();
  }

  promotionCode(code: string): Promise<PromotionCodeRow | undefined> {
    return this.db.selectFrom('promotion_codes').selectAll().where('code', '=', code.toLowerCase()).executeTakeFirst();
  }

  /** Adds the code unless it exists (the primary key settles two at once): false when it existed. */
  async addPromotionCode(row: Omit<PromotionCodeRow, 'used_count'>): Promise<boolean> {
    const added = await this.db.insertInto('promotion_codes').values(row).onConflict((oc) => oc.column('code').doNothing()).returning('code').executeTakeFirst();
    return added !== undefined;
  }

  /**
   * A code's limit and end; a new limit only while it is not below the uses counted (a redemption at the same
   * moment is counted first or refused by its own compare-and-set). False when the limit was refused.
   */
  async updatePromotionCode(code: string, set: Partial<Pick<PromotionCodeRow, 'usage_limit' | 'expires_at'>>): Promise<boolean> {
    const r = await this.db
      .updateTable('promotion_codes')
      .set(set)
      .where('code', '=', code)
      .$if(set.usage_limit !== undefined && set.usage_limit !== null, (q) => q.where('used_count', '<=', set.usage_limit!))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  listPromotionCodes(): Promise<PromotionCodeRow[]> {
    return this.db.selectFrom('promotion_codes').selectAll().orderBy('code').execute();
  }

  invoices(userId: number): Promise<InvoiceRow[]> {
    return this.db.selectFrom('invoices').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute();
  }

  invoice(id: number): Promise<InvoiceRow | undefined> {
    return this.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** open -> paid; false when it was not open. */
  async markInvoicePaid(id: number, at: string): Promise<boolean> {
    const r = await this.db.updateTable('invoices').set({ status: 'paid', paid_at: at }).where('id', '=', id).where('status', '=', 'open').executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Makes the change if the account is still in one of `fromStatuses` (and the promotion code, if any, still has
   * uses left): the account, its history entry, the invoice and the code's count together. The updated account, or
   * null when the account had moved on (another request changed it first), 'code-used-up' when the code ran out
   * meanwhile (nothing is changed then).
   */
  async change(c: StateChange): Promise<{ user: UserRow; invoice: InvoiceRow | null } | null | 'code-used-up'> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set(c.set)
        .where('id', '=', c.userId)
        .where('status', 'in', [...c.fromStatuses])
        .$if(c.whileEndsAt !== undefined, (q) => q.where('subscription_ends_at', '=', c.whileEndsAt!))
        .returningAll()
        .executeTakeFirst();
      if (!updated) return null;
      if (c.promotionCode) {
        const used = await trx
          .updateTable('promotion_codes')
          .set({ used_count: sql`used_count + 1` })
          .where('code', '=', c.promotionCode)
          .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
          .executeTakeFirst();
        if (Number(used.numUpdatedRows) !== 1) throw new CodeUsedUp();
      }
      const invoice = c.invoice ? await trx.insertInto('invoices').values({ ...c.invoice, user_id: c.userId }).returningAll().executeTakeFirstOrThrow() : null;
      await trx
        .insertInto('account_history')
        .values({ user_id: c.userId, ...c.history, detail: c.history.detail ?? '', at: c.at })
        .execute();
      return { user: updated, invoice };
    }).catch((err: unknown) => {
      if (err instanceof CodeUsedUp) return 'code-used-up' as const;
      throw err;
    });
  }

  user(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Accounts whose state is due to change at `now`: trials past their end, paid periods past their end. */
  async due(now: string, limit = 500): Promise<UserRow[]> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'trial'), eb('trial_ends_at', 'is not', null), eb('trial_ends_at', '<=', now)]),
          eb.and([eb('status', 'in', ['subscriber', 'cancelled']), eb('subscription_ends_at', 'is not', null), eb('subscription_ends_at', '<=', now)]),
        ]),
      )
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}

/** The code ran out between the check and the change: the transaction is undone. */
class CodeUsedUp extends Error {}
