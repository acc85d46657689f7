/**
 * The subscription state machine (docs/decisions.md "Joining"): trial -> subscriber, trial -> expired -> subscriber,
 * subscriber -> cancelled -> reactivated (or expired at the end of the paid period), a plan change, and renewal. Each
 * transition is one call here, written to the account history in the same transaction as the change
 * (repositories/subscriptions.ts), and made only from the state it expects: two clicks at once make one change. Ends
 * happen on time without a request: `runDue` is called every minute by app.ts and at start, and works from the stored
 * dates, so a restart loses nothing.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  type AdminPromotionCodePatch,
  MESSAGES,
  type Invoice,
  PLAN_PERIODS,
  PLANS,
  type Plan,
  type PlanInfo,
  type PromotionResponse,
  type Subscription,
  SUBSCRIPTION_MESSAGES,
} from '@lectern/core';
import { z } from 'zod';
import type { InvoiceRow, PlanRow, PromotionCodeRow, UserRow } from '../db/schema.ts';
import { AppError, badRequest, fieldError, notFound } from '../errors.ts';
import { effectiveStatus, inPaidPeriod } from '../policies/reading.ts';
import type { SubscriptionsRepository } from '../repositories/subscriptions.ts';
import type { PaymentProvider } from './payments.ts';

const planInputSchema = z.object({
  slug: z.enum(PLANS),
  name: z.string().trim().min(1).max(60),
  price_cents: z.number().int().min(0).max(10_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, 'currency is a three-letter code such as USD'),
  period: z.enum(PLAN_PERIODS),
});

const promotionInputSchema = z
  .object({
    // an empty code stops at 'required' (abort): the pattern's words would only repeat it
    code: z.string().trim().toLowerCase().min(1, { message: MESSAGES.fieldRequired, abort: true }).max(60).regex(/^[a-z0-9_-]+$/, 'a code is letters, digits, - and _'),
    kind: z.enum(['percent', 'fixed']),
    amount: z.number().int().min(0).max(10_000_000),
    plan: z.enum(PLANS).nullable().default(null),
    expires_at: z.iso.datetime().nullable().default(null),
    usage_limit: z.number().int().min(1).nullable().default(null),
    is_sale: z.boolean().default(false),
  })
  .refine((v) => v.kind !== 'percent' || v.amount <= 100, { path: ['amount'], message: 'a percentage is at most 100' });

type Priced = { plan: PlanRow; code: PromotionCodeRow | null; amountCents: number };

/** The end of one period of `plan` that starts at `start`. */
export function periodEnd(start: Date, period: PlanRow['period']): Date {
  const end = new Date(start);
  if (period === 'year') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}

/** How often app.ts looks for trials and paid periods that have ended. */
export const SUBSCRIPTION_CHECK_INTERVAL_MS = 60_000;

const money = (cents: number) => (cents / 100).toFixed(2);

/** Where the subscriber said they live, and whether they accepted the EU agreement (§4), as the request had them. */
export interface SubscriptionTerms {
  country?: string;
  euAgreement?: boolean;
}

/** The terms in the account history's words: the record of what an EU consumer agreed to. */
const termsDetail = (terms: SubscriptionTerms) =>
  `${terms.country ? `, country ${terms.country}` : ''}${terms.euAgreement ? ', EU agreement accepted (starts at once, no withdrawal)' : ''}`;

export class SubscriptionsService {
  constructor(
    private readonly repo: SubscriptionsRepository,
    private readonly provider: PaymentProvider,
    private readonly now: () => Date = () => new Date(),
    /** told of every account whose state changed (app.ts: the session cache forgets it, so reading rights follow at once) */
    private readonly onChange: (userId: number) => void = () => {},
  ) {}

  /** The account as stored now: the session's copy may be a moment old, and two clicks must see each other. */
  private async fresh(user: UserRow): Promise<UserRow> {
    return (await this.repo.user(user.id)) ?? user;
  }

  private changed<T extends { user: UserRow }>(result: T): T {
    this.onChange(result.user.id);
    return result;
  }

  async plans(): Promise<PlanInfo[]> {
    return (await this.repo.plans()).filter((p): p is PlanRow & { slug: Plan } => p.slug === 'basic' || p.slug === 'pro');
  }

  /** Why a code may not be used for `plan`, or null. */
  private codeProblem(code: PromotionCodeRow | undefined, plan: string): string | null {
    if (!code) return SUBSCRIPTION_MESSAGES.codeNotValid;
    if (code.expires_at && Date.parse(code.expires_at) <= this.now().getTime()) return SUBSCRIPTION_MESSAGES.codeExpired;
    if (code.usage_limit !== null && code.used_count >= code.usage_limit) return SUBSCRIPTION_MESSAGES.codeUsedUp;
    if (code.plan && code.plan !== plan) return SUBSCRIPTION_MESSAGES.codeOtherPlan(plan, code.plan);
    return null;
  }

  private async price(planSlug: string, rawCode: string | undefined): Promise<Priced> {
    const plan = await this.repo.plan(planSlug);
    if (!plan) throw badRequest(`There is no ${planSlug} plan.`, { plan: [`There is no ${planSlug} plan.`] });
    const codeText = rawCode?.trim().toLowerCase();
    if (!codeText) return { plan, code: null, amountCents: plan.price_cents };
    const code = await this.repo.promotionCode(codeText);
    const problem = this.codeProblem(code, plan.slug);
    if (problem || !code) throw badRequest(problem ?? SUBSCRIPTION_MESSAGES.codeNotValid, { promotion_code: [problem ?? SUBSCRIPTION_MESSAGES.codeNotValid] });
    const off = code.kind === 'percent' ? Math.round((plan.price_cents * Math.min(100, code.amount)) / 100) : code.amount;
    return { plan, code, amountCents: Math.max(0, plan.price_cents - off) };
  }

  /** §3 "Promotion response" for a code on a plan; an unusable code is `success: false` with the reason. */
  async redeem(rawCode: string, planSlug: Plan): Promise<PromotionResponse> {
    const codeText = rawCode.trim().toLowerCase();
    const plan = await this.repo.plan(planSlug);
    const base = { promotion_code: codeText, currency_costs: plan ? { [plan.currency]: money(plan.price_cents) } : {}, period: plan?.period ?? 'month', is_sale: false };
    if (!codeText) return { ...base, success: false, message: SUBSCRIPTION_MESSAGES.codeNotValid };
    try {
      const priced = await this.price(planSlug, codeText);
      return {
        success: true,
        promotion_code: codeText,
        message: SUBSCRIPTION_MESSAGES.codeApplied(codeText),
        currency_costs: { [priced.plan.currency]: money(priced.amountCents) },
        period: priced.plan.period,
        is_sale: !!priced.code?.is_sale,
      };
    } catch (err) {
      if (err instanceof AppError) return { ...base, success: false, message: err.detail };
      throw err;
    }
  }

  async subscription(stale: UserRow): Promise<Subscription> {
    const user = await this.fresh(stale);
    const status = effectiveStatus(user, this.now());
    return {
      status,
      plan: user.plan,
      trial_ends_at: user.trial_ends_at,
      subscription_ends_at: user.subscription_ends_at,
      can: {
        subscribe: status === 'trial' || status === 'expired',
        upgrade: status === 'subscriber' && user.plan !== 'pro',
        cancel: status === 'subscriber',
        reactivate: status === 'cancelled' || (status === 'expired' && user.subscription_ends_at !== null),
      },
      invoices: (await this.repo.invoices(user.id)).map(toInvoice),
    };
  }

  /**
   * Subscribes (from a trial, an expired or a cancelled account) or changes the plan of a subscriber; a new period
   * starts now and is charged through the provider. The plan the reader already has changes nothing (answered with
   * the subscription as it is), so a second click, or one that lost the race to the first, makes no second charge.
   */
  async subscribe(stale: UserRow, planSlug: Plan, code?: string, event?: string, terms: SubscriptionTerms = {}): Promise<Subscription> {
    const user = await this.fresh(stale);
    const now = this.now();
    const status = effectiveStatus(user, now);
    // The plan the reader already has: nothing to do, and a double click is one subscription, not an error.
    if (status === 'subscriber' && user.plan === planSlug) return this.subscription(user);
    const priced = await this.price(planSlug, code);
    const end = periodEnd(now, priced.plan.period);
    const charge = await this.provider.charge({
      userEmail: user.email,
      amountCents: priced.amountCents,
      currency: priced.plan.currency,
      description: `Lectern ${priced.plan.name}, ${now.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`,
    });
    const changed = await this.repo.change({
      userId: user.id,
      fromStatuses: [user.status],
      set: { status: 'subscriber', plan: priced.plan.slug, subscription_ends_at: end.toISOString() },
      history: {
        event: event ?? (status === 'subscriber' ? 'plan_changed' : 'subscribed'),
        from_status: status,
        to_status: 'subscriber',
        detail: `${priced.plan.slug}${priced.code ? ` with ${priced.code.code}` : ''}, ${money(priced.amountCents)} ${priced.plan.currency}${termsDetail(terms)}`,
      },
      at: now.toISOString(),
      invoice: this.invoiceRow(priced, charge, now, end),
      promotionCode: priced.code?.code,
    });
    if (changed === 'code-used-up') {
      await this.provider.void(charge.reference);
      throw badRequest(SUBSCRIPTION_MESSAGES.codeUsedUp, { promotion_code: [SUBSCRIPTION_MESSAGES.codeUsedUp] });
    }
    if (!changed) return this.afterLostRace(user, charge.reference, (u) => u.status === 'subscriber' && u.plan === planSlug);
    return this.subscription(this.changed(changed).user);
  }

  /** subscriber -> cancelled: reading goes on to the end of the paid period, then the account expires. */
  async cancel(stale: UserRow): Promise<Subscription> {
    const user = await this.fresh(stale);
    if (effectiveStatus(user, this.now()) !== 'subscriber') throw badRequest(SUBSCRIPTION_MESSAGES.notSubscribed);
    const at = this.now().toISOString();
    const changed = await this.repo.change({
      userId: user.id,
      fromStatuses: ['subscriber'],
      set: { status: 'cancelled' },
      history: { event: 'cancelled', from_status: 'subscriber', to_status: 'cancelled', detail: `paid until ${user.subscription_ends_at ?? 'now'}` },
      at,
    });
    if (!changed || changed === 'code-used-up') return this.afterLostRace(user, null, (u) => u.status === 'cancelled');
    return this.subscription(this.changed(changed).user);
  }

  /**
   * Undoes a cancellation within the paid period (no new charge), or, once the period or the trial is over,
   * subscribes again (`plan`, else the plan the reader had).
   */
  async reactivate(stale: UserRow, planSlug?: Plan, code?: string, terms: SubscriptionTerms = {}): Promise<Subscription> {
    const user = await this.fresh(stale);
    const now = this.now();
    const status = effectiveStatus(user, now);
    if (status === 'cancelled' && inPaidPeriod(user, now)) {
      const changed = await this.repo.change({
        userId: user.id,
        fromStatuses: ['cancelled'],
        set: { status: 'subscriber' },
        history: { event: 'reactivated', from_status: 'cancelled', to_status: 'subscriber', detail: `paid until ${user.subscription_ends_at}${termsDetail(terms)}` },
        at: now.toISOString(),
      });
      if (!changed || changed === 'code-used-up') return this.afterLostRace(user, null, (u) => u.status === 'subscriber');
      return this.subscription(this.changed(changed).user);
    }
    if (status === 'cancelled' || status === 'expired') {
      const plan = planSlug ?? (user.plan === 'pro' ? 'pro' : 'basic');
      return this.subscribe(user, plan, code, 'reactivated', terms);
    }
    throw badRequest(SUBSCRIPTION_MESSAGES.nothingToReactivate);
  }

  /**
   * Every change that is due at `now`: trials past their end expire, cancelled accounts past their paid period
   * expire, subscribers past theirs renew for another period. Returns how many accounts changed.
   */
  async runDue(): Promise<number> {
    const now = this.now();
    let changed = 0;
    for (const user of await this.repo.due(now.toISOString())) {
      if (user.status === 'trial') {
        const done = await this.repo.change({
          userId: user.id,
          fromStatuses: ['trial'],
          set: { status: 'expired' },
          history: { event: 'trial_expired', from_status: 'trial', to_status: 'expired', detail: `trial ended ${user.trial_ends_at}` },
          at: now.toISOString(),
        });
        if (done && done !== 'code-used-up') {
          this.changed(done);
          changed++;
        }
      } else if (user.status === 'cancelled') {
        const done = await this.repo.change({
          userId: user.id,
          fromStatuses: ['cancelled'],
          set: { status: 'expired' },
          history: { event: 'subscription_ended', from_status: 'cancelled', to_status: 'expired', detail: `paid until ${user.subscription_ends_at}` },
          at: now.toISOString(),
        });
        if (done && done !== 'code-used-up') {
          this.changed(done);
          changed++;
        }
      } else if (user.status === 'subscriber' && (await this.renew(user, now))) changed++;
    }
    return changed;
  }

  private async renew(user: UserRow, now: Date): Promise<boolean> {
    const priced = await this.price(user.plan ?? 'basic', undefined);
    const start = new Date(user.subscription_ends_at ?? now.toISOString());
    const end = periodEnd(start, priced.plan.period);
    const charge = await this.provider.charge({
      userEmail: user.email,
      amountCents: priced.amountCents,
      currency: priced.plan.currency,
      description: `Lectern ${priced.plan.name}, ${start.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`,
    });
    const done = await this.repo.change({
      userId: user.id,
      // only while it is still this period's subscriber: a second runner renews nothing twice
      fromStatuses: ['subscriber'],
      whileEndsAt: user.subscription_ends_at ?? undefined,
      set: { subscription_ends_at: end.toISOString() },
      history: { event: 'renewed', from_status: 'subscriber', to_status: 'subscriber', detail: `${priced.plan.slug} until ${end.toISOString()}` },
      at: now.toISOString(),
      invoice: this.invoiceRow(priced, charge, start, end),
    });
    if (!done || done === 'code-used-up') {
      await this.provider.void(charge.reference);
      return false;
    }
    this.changed(done);
    return true;
  }

  /** The operator sets a plan's price (admin API, `plans:set`). */
  async setPlan(input: unknown): Promise<PlanInfo> {
    const plan = planInputSchema.parse(input);
    await this.repo.setPlan(plan);
    return plan;
  }

  /** The operator adds a promotion code (admin API, `promo:add`); stored and matched lower-cased. */
  async addPromotionCode(input: unknown): Promise<PromotionCodeRow> {
    const v = promotionInputSchema.parse(input);
    const row = { ...v, is_sale: v.is_sale ? 1 : 0, created_at: this.now().toISOString() } as const;
    // no look first: the insert itself tells whether the code existed (two identical requests at once: one adds it)
    if (!(await this.repo.addPromotionCode(row))) throw badRequest(SUBSCRIPTION_MESSAGES.codeExists(v.code), { code: [SUBSCRIPTION_MESSAGES.codeExists(v.code)] });
    return (await this.repo.promotionCode(v.code))!;
  }

  /**
   * The operator changes a code's redemption limit or end (admin API, `promo:edit`): never a limit below the
   * redemptions made; an end now or past ends the code at once. Answers the code before and after.
   */
  async editPromotionCode(rawCode: string, patch: AdminPromotionCodePatch): Promise<{ before: PromotionCodeRow; after: PromotionCodeRow }> {
    const code = rawCode.trim().toLowerCase();
    const before = await this.repo.promotionCode(code);
    if (!before) throw notFound(M.promotionCodeNotFound);
    const set: Partial<Pick<PromotionCodeRow, 'usage_limit' | 'expires_at'>> = {};
    if (patch.usage_limit !== undefined) set.usage_limit = patch.usage_limit;
    if (patch.expires_at !== undefined) set.expires_at = patch.expires_at === null ? null : new Date(patch.expires_at).toISOString();
    if (!(await this.repo.updatePromotionCode(code, set))) {
      const used = (await this.repo.promotionCode(code))?.used_count ?? before.used_count;
      throw fieldError('usage_limit', M.limitBelowUsed(used));
    }
    return { before, after: (await this.repo.promotionCode(code))! };
  }

  listPromotionCodes(): Promise<PromotionCodeRow[]> {
    return this.repo.listPromotionCodes();
  }

  /** The operator marks an invoice paid (admin API, `invoices:paid`). */
  async markInvoicePaid(id: number): Promise<Invoice> {
    const invoice = await this.repo.invoice(id);
    if (!invoice) throw notFound(SUBSCRIPTION_MESSAGES.noSuchInvoice);
    if (!(await this.repo.markInvoicePaid(id, this.now().toISOString()))) throw badRequest(SUBSCRIPTION_MESSAGES.invoiceNotOpen);
    return toInvoice((await this.repo.invoice(id))!);
  }

  private invoiceRow(priced: Priced, charge: { reference: string; paid: boolean }, start: Date, end: Date): Omit<InvoiceRow, 'id' | 'user_id'> {
    const bill = { plan: priced.plan, amountCents: priced.amountCents, promotionCode: priced.code?.code ?? null, seats: null };
    return { ...newInvoice(bill, charge, this.provider.name, start, end, this.now()), team_id: null };
  }

  /**
   * Another request changed the account between our read and our write. If it made the change we were asked for,
   * answer with it (a double click is one subscription); otherwise say the account moved on.
   */
  private async afterLostRace(user: UserRow, chargeReference: string | null, wanted: (u: UserRow) => boolean): Promise<Subscription> {
    if (chargeReference) await this.provider.void(chargeReference);
    const fresh = await this.repo.user(user.id);
    if (fresh && wanted(fresh)) return this.subscription(fresh);
    throw new AppError(409, SUBSCRIPTION_MESSAGES.changedMeanwhile);
  }
}

/**
 * A new invoice's row, for an account's own subscription or a team's seats (services/teams.ts): paid at once when the
 * charge was, over the period from `start` to `end`. The caller names the account and team it bills.
 */
export function newInvoice(
  bill: { plan: PlanRow; amountCents: number; promotionCode: string | null; seats: number | null },
  charge: { reference: string; paid: boolean },
  provider: string,
  start: Date,
  end: Date,
  now: Date,
): Omit<InvoiceRow, 'id' | 'user_id' | 'team_id'> {
  const at = now.toISOString();
  return {
    plan: bill.plan.slug,
    amount_cents: bill.amountCents,
    currency: bill.plan.currency,
    promotion_code: bill.promotionCode,
    status: charge.paid ? 'paid' : 'open',
    provider,
    provider_reference: charge.reference,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    created_at: at,
    paid_at: charge.paid ? at : null,
    seats: bill.seats,
  };
}

/** An invoice as its account sees it (the account page; the console adds who was billed: services/admin-selling.ts). */
export function toInvoice(row: InvoiceRow): Invoice {
  const { id, plan, amount_cents, currency, promotion_code, status, period_start, period_end, created_at, paid_at, seats } = row;
  return { id, plan, amount_cents, currency, promotion_code, status, period_start, period_end, created_at, paid_at, seats };
}
