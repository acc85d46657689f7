/**
 * Staying (docs/decisions.md "Joining") on both engines: plans, promotion codes (every §5 message), the state machine
 * (trial -> subscriber, trial -> expired -> subscriber, subscriber -> cancelled -> reactivated, plan change, renewal)
 * with each transition in the account history, ends that happen without a request (the due job, with a clock the test
 * moves), two clicks at once, a code's last use raced for, and the operator's side.
 */
import { accountEntryPaths, READING_MESSAGES, SUBSCRIPTION_MESSAGES, subscriptionSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/db/schema.ts';
import { SubscriptionsRepository } from '../../src/repositories/subscriptions.ts';
import { InvoiceProvider } from '../../src/services/payments.ts';
import { SubscriptionsService } from '../../src/services/subscriptions.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const PASSWORD = 'a reading lamp by the window';
const DAY = 86_400_000;

describe.each(ENGINES)('subscriptions on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let lockedChapterUrl: string;
  let n = 0;

  const reader = async (status: UserRow['status'] = 'trial') => {
    n += 1;
    const email = `reader${n}@example.com`;
    await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status });
    const client = new TestClient(t.lectern.app);
    await client.login(email, PASSWORD);
    const user = (await t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow());
    return { client, user, email };
  };
  const userRow = (id: number) => t.lectern.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow() as Promise<UserRow>;
  const history = async (user: UserRow) => (await t.lectern.services.registration.history(user)).map((h) => h.event);
  /** The same rules with a clock the test moves: what the every-minute job does when that time comes. */
  const at = (when: Date) => new SubscriptionsService(new SubscriptionsRepository(t.lectern.db.kysely), new InvoiceProvider(), () => when);

  beforeAll(async () => {
    t = await startTestApp(engine);
    const book = await t.lectern.services.importer.importBytes(twoChapterBook(), 'two.epub');
    await t.lectern.services.flags.set(book.book_id, 'b.xhtml', { as_sample: false, is_public: false });
    lockedChapterUrl = `/api/v1/book/${book.book_id}/chapter/b.xhtml`;
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', PASSWORD);
  });
  afterAll(() => t.close());

  it('lists the plans, and lets the operator set a price', async () => {
    const plans = (await new TestClient(t.lectern.app).get(accountEntryPaths.plans())).json().results;
    expect(plans.map((p: { slug: string }) => p.slug)).toEqual(['basic', 'pro']);
    const changed = await admin.request('PUT', '/api/v2/admin/plans/pro/', { json: { name: 'Pro', price_cents: 4000, currency: 'USD', period: 'month' } });
    expect(changed.statusCode).toBe(200);
    const bad = await admin.request('PUT', '/api/v2/admin/plans/pro/', { json: { name: 'Pro', price_cents: -1, currency: 'dollars', period: 'week' } });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['currency', 'period', 'price_cents']);
    const { client } = await reader('subscriber');
    expect((await client.request('PUT', '/api/v2/admin/plans/pro/', { json: { name: 'x', price_cents: 1, currency: 'USD', period: 'month' } })).statusCode).toBe(403);
  });

  it('an account made a subscriber without a plan is on Basic, as it is billed (the demo reader, users:create)', async () => {
    const { client, user } = await reader('subscriber');
    expect(user.plan).toBe('basic');
    expect((await client.get(accountEntryPaths.subscription())).json()).toMatchObject({ status: 'subscriber', plan: 'basic' });
  });

  it('answers promotion codes with every message of §5 the server gives', async () => {
    const visitor = new TestClient(t.lectern.app);
    const redeem = async (code: string, plan = 'pro') => (await visitor.get(`${accountEntryPaths.promotionRedeem()}?code=${encodeURIComponent(code)}&plan=${plan}`)).json();
    expect(await redeem('')).toMatchObject({ success: false, message: SUBSCRIPTION_MESSAGES.codeNotValid });
    expect(await redeem('nonsense')).toMatchObject({ success: false, message: SUBSCRIPTION_MESSAGES.codeNotValid });
    const made = await admin.post('/api/v2/admin/promotion-codes/', { code: 'Spring20', kind: 'percent', amount: 20, plan: 'pro', usage_limit: 5, is_sale: true });
    expect(made.statusCode).toBe(201);
    expect((await admin.post('/api/v2/admin/promotion-codes/', { code: 'spring20', kind: 'fixed', amount: 1 })).statusCode).toBe(400);
    expect(await redeem('SPRING20')).toEqual({
      success: true,
      promotion_code: 'spring20',
      message: SUBSCRIPTION_MESSAGES.codeApplied('spring20'),
      currency_costs: { USD: '32.00' },
      period: 'month',
      is_sale: true,
    });
    // A pro-only code on the basic plan: the message names the plan chosen, then the code's (docs/decisions.md "The
    // paying reader's path").
    expect(await redeem('spring20', 'basic')).toMatchObject({ success: false, message: 'This code is not for the basic plan: it is for the pro plan.' });
    const { client: trial } = await reader('expired');
    const refused = await trial.post(accountEntryPaths.subscription(), { plan: 'basic', promotion_code: 'spring20' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual({ promotion_code: [SUBSCRIPTION_MESSAGES.codeOtherPlan('basic', 'pro')] });
    await admin.post('/api/v2/admin/promotion-codes/', { code: 'winter', kind: 'fixed', amount: 500, expires_at: new Date(Date.now() - DAY).toISOString() });
    expect(await redeem('winter')).toMatchObject({ success: false, message: SUBSCRIPTION_MESSAGES.codeExpired });
    // §5: the basic plan's own code
    expect(await redeem('price24', 'basic')).toMatchObject({ success: true, currency_costs: { USD: '24.00' } });
  });

  it('trial -> subscriber with a code, then a plan change; the same plan twice changes nothing', async () => {
    const { client, user } = await reader('trial');
    expect(subscriptionSchema.parse((await client.get(accountEntryPaths.subscription())).json()).can).toEqual({ subscribe: true, upgrade: false, cancel: false, reactivate: false });
    const basic = await client.post(accountEntryPaths.subscription(), { plan: 'basic', promotion_code: 'PRICE24' });
    expect(basic.statusCode).toBe(200);
    expect(basic.json()).toMatchObject({ status: 'subscriber', plan: 'basic', can: { upgrade: true, cancel: true } });
    expect(basic.json().invoices).toEqual([expect.objectContaining({ plan: 'basic', amount_cents: 2400, status: 'open', promotion_code: 'price24' })]);
    // The plan the reader has already: nothing changes, no second invoice.
    const again = await client.post(accountEntryPaths.subscription(), { plan: 'basic' });
    expect(again.statusCode).toBe(200);
    expect(again.json().invoices).toHaveLength(1);
    const pro = await client.post(accountEntryPaths.subscription(), { plan: 'pro', promotion_code: 'spring20' });
    expect(pro.json()).toMatchObject({ status: 'subscriber', plan: 'pro' });
    expect(pro.json().invoices[0]).toMatchObject({ plan: 'pro', amount_cents: 3200 });
    expect(await history(user)).toEqual(['subscribed', 'plan_changed']);
    const badCode = await client.post(accountEntryPaths.subscription(), { plan: 'basic', promotion_code: 'nonsense' });
    expect(badCode.statusCode).toBe(400);
    expect(badCode.json().errors).toEqual({ promotion_code: [SUBSCRIPTION_MESSAGES.codeNotValid] });
  });

  it('asks an EU subscriber for the agreement (a 400 naming it, nothing changed) and records country and agreement', async () => {
    const { client, user } = await reader('trial');
    const refused = await client.post(accountEntryPaths.subscription(), { plan: 'basic', country: 'de' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual({ eu_agreement: [SUBSCRIPTION_MESSAGES.agreementRequired] });
    expect((await userRow(user.id)).status).toBe('trial');
    const unknown = await client.post(accountEntryPaths.subscription(), { plan: 'basic', country: 'XX' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual({ country: [SUBSCRIPTION_MESSAGES.countryUnknown] });
    const agreed = await client.post(accountEntryPaths.subscription(), { plan: 'basic', country: 'DE', eu_agreement: true });
    expect(agreed.statusCode).toBe(200);
    const entries = await t.lectern.services.registration.history(user);
    expect(entries.at(-1)!.detail).toContain('country DE, EU agreement accepted');
    // outside the EU nothing more is asked
    const other = await reader('trial');
    expect((await other.client.post(accountEntryPaths.subscription(), { plan: 'basic', country: 'US' })).statusCode).toBe(200);
  });

  it('ends a trial on time without a request, once, and the expired reader subscribes', async () => {
    const { client, user } = await reader('trial');
    const end = new Date(Date.parse(user.trial_ends_at!) + 1000);
    expect(await at(new Date(end.getTime() - 2000)).runDue()).toBe(0);
    expect(await at(end).runDue()).toBeGreaterThanOrEqual(1);
    expect(await at(end).runDue()).toBe(0);
    expect((await userRow(user.id)).status).toBe('expired');
    expect(await history(user)).toEqual(['trial_expired']);
    expect((await client.get(lockedChapterUrl)).json().detail).toBe(READING_MESSAGES.subscriptionEnded);
    const subscribed = await client.post(accountEntryPaths.subscription(), { plan: 'basic' });
    expect(subscribed.json().status).toBe('subscriber');
    expect((await client.get(lockedChapterUrl)).statusCode).toBe(200);
    expect(await history(user)).toEqual(['trial_expired', 'subscribed']);
  });

  it('subscriber -> cancelled (reads to the end of the paid period) -> reactivated; ended -> reactivated anew', async () => {
    const { client, user } = await reader('trial');
    await client.post(accountEntryPaths.subscription(), { plan: 'basic' });
    const cancelled = await client.post(accountEntryPaths.cancel(), {});
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', can: { reactivate: true, cancel: false } });
    expect((await client.get(lockedChapterUrl)).statusCode).toBe(200);
    const back = await client.post(accountEntryPaths.reactivate(), {});
    expect(back.json()).toMatchObject({ status: 'subscriber' });
    expect(back.json().invoices).toHaveLength(1);
    await client.post(accountEntryPaths.cancel(), {});
    const ends = Date.parse((await userRow(user.id)).subscription_ends_at!);
    await at(new Date(ends + 1000)).runDue();
    expect((await userRow(user.id)).status).toBe('expired');
    expect((await client.get(lockedChapterUrl)).statusCode).toBe(403);
    const anew = await client.post(accountEntryPaths.reactivate(), { plan: 'pro' });
    expect(anew.json()).toMatchObject({ status: 'subscriber', plan: 'pro' });
    expect(anew.json().invoices).toHaveLength(2);
    expect(await history(user)).toEqual(['subscribed', 'cancelled', 'reactivated', 'cancelled', 'subscription_ended', 'reactivated']);
    expect((await client.post(accountEntryPaths.cancel(), {})).statusCode).toBe(200);
    expect((await client.post(accountEntryPaths.cancel(), {})).json().detail).toBe(SUBSCRIPTION_MESSAGES.notSubscribed);
  });

  it('renews a subscriber whose period ended, with a new invoice', async () => {
    const { client, user } = await reader('trial');
    await client.post(accountEntryPaths.subscription(), { plan: 'basic' });
    const ends = Date.parse((await userRow(user.id)).subscription_ends_at!);
    // Two runners at once (two server processes) renew it once.
    await Promise.all([at(new Date(ends + 1000)).runDue(), at(new Date(ends + 1000)).runDue()]);
    const after = await userRow(user.id);
    expect(after.status).toBe('subscriber');
    expect(Date.parse(after.subscription_ends_at!)).toBeGreaterThan(ends + 27 * DAY);
    expect((await client.get(accountEntryPaths.subscription())).json().invoices).toHaveLength(2);
    expect(await history(user)).toEqual(['subscribed', 'renewed']);
  });

  it('makes one subscription of two clicks at once', async () => {
    const { client, user } = await reader('trial');
    const [a, b] = await Promise.all([
      client.post(accountEntryPaths.subscription(), { plan: 'pro' }),
      client.post(accountEntryPaths.subscription(), { plan: 'pro' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().invoices).toHaveLength(1);
    expect(b.json().invoices).toHaveLength(1);
    expect(await history(user)).toEqual(['subscribed']);
  });

  it("lets a code's last use go to one of two readers racing for it", async () => {
    await admin.post('/api/v2/admin/promotion-codes/', { code: 'onlyone', kind: 'percent', amount: 50, usage_limit: 1 });
    const [x, y] = await Promise.all([reader('trial'), reader('trial')]);
    const results = await Promise.all([x, y].map((r) => r.client.post(accountEntryPaths.subscription(), { plan: 'basic', promotion_code: 'onlyone' })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.statusCode === 400)!.json().errors.promotion_code).toEqual([SUBSCRIPTION_MESSAGES.codeUsedUp]);
  });

  it('lets the operator mark an invoice paid; nobody else, and not twice', async () => {
    const { client } = await reader('trial');
    const invoice = (await client.post(accountEntryPaths.subscription(), { plan: 'basic' })).json().invoices[0];
    expect((await client.post(`/api/v2/admin/invoices/${invoice.id}/paid/`, {})).statusCode).toBe(403);
    const paid = await admin.post(`/api/v2/admin/invoices/${invoice.id}/paid/`, {});
    expect(paid.json()).toMatchObject({ id: invoice.id, status: 'paid' });
    expect((await admin.post(`/api/v2/admin/invoices/${invoice.id}/paid/`, {})).json().detail).toBe(SUBSCRIPTION_MESSAGES.invoiceNotOpen);
    expect((await admin.post('/api/v2/admin/invoices/999999/paid/', {})).statusCode).toBe(404);
    expect((await client.get(accountEntryPaths.subscription())).json().invoices[0].status).toBe('paid');
    expect((await new TestClient(t.lectern.app).get(accountEntryPaths.subscription())).statusCode).toBe(401);
  });
});
