// Subscription schedules through the official SDK: two phases (1 month at 1000, then 2 months at
// 3000) moving on `advance` and completing with `end_behavior=cancel`; a schedule starting later
// creating its subscription when the clock reaches it; `from_subscription`, release and cancel;
// `subscription_schedule.*` webhooks verified with constructEvent; the object checked against the
// spec schema.

import t from 'tap';
import type Stripe from 'stripe';
import { DAY, START, customerWithCard, monthlyPrice } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { checkSchema } from './spec-schema.js';

let now = START.getTime();

const twin = hookedBillingTwin(t);

async function advanceDays(days: number): Promise<void> {
  now += days * DAY * 1000;
  await twin.bt.twin.advance(new Date(now));
}

t.test('an integration pinned before 2025-09-30.clover still sends phases[][iterations]', async (t) => {
  const price = await monthlyPrice(twin.stripe, 1200, 'Pinned');
  const { customer } = await customerWithCard(twin.stripe);
  const basil = { apiVersion: '2025-08-27.basil' };
  const sched = await twin.stripe.subscriptionSchedules.create(
    { customer: customer.id, start_date: 'now', end_behavior: 'release', phases: [{ items: [{ price: price.id, quantity: 1 }], iterations: 3 } as any] },
    basil,
  );
  const phase = sched.phases[0]!;
  const months =
    (new Date(phase.end_date * 1000).getUTCFullYear() - new Date(phase.start_date * 1000).getUTCFullYear()) * 12 +
    new Date(phase.end_date * 1000).getUTCMonth() -
    new Date(phase.start_date * 1000).getUTCMonth();
  t.equal(months, 3, 'three monthly iterations make a three-month phase');
  const notInteger = await twin.stripe.subscriptionSchedules
    .create({ customer: customer.id, start_date: 'now', phases: [{ items: [{ price: price.id, quantity: 1 }], iterations: 'three' } as any] }, basil)
    .catch((e) => e);
  t.equal(notInteger.statusCode, 400);
  t.equal(notInteger.param, 'phases[0][iterations]');
});

t.test('phases move on advance and the schedule completes, canceling the subscription', async (t) => {
  const intro = await monthlyPrice(twin.stripe, 1000, 'Intro');
  const full = await twin.stripe.prices.create({ product: intro.product as string, unit_amount: 3000, currency: 'usd', recurring: { interval: 'month' } });
  const { customer } = await customerWithCard(twin.stripe);
  const sched = await twin.stripe.subscriptionSchedules.create({
    customer: customer.id,
    start_date: 'now',
    end_behavior: 'cancel',
    phases: [
      { items: [{ price: intro.id, quantity: 1 }], duration: { interval: 'month', interval_count: 1 } },
      { items: [{ price: full.id, quantity: 1 }], duration: { interval: 'month', interval_count: 2 } },
    ],
  });
  t.match(sched.id, /^sub_sched_/);
  t.equal(sched.status, 'active');
  t.match(sched.subscription, /^sub_/);
  t.equal(sched.phases.length, 2);
  t.equal(sched.phases[0]!.end_date, sched.phases[1]!.start_date);
  t.same(sched.current_phase, { start_date: sched.phases[0]!.start_date, end_date: sched.phases[0]!.end_date });
  checkSchema(t, 'subscription_schedule', await twin.raw(`/v1/subscription_schedules/${sched.id}`));
  await twin.hooks.waitFor('subscription_schedule.created', (s) => s.id === sched.id);
  const subId = sched.subscription as string;
  let sub = await twin.stripe.subscriptions.retrieve(subId);
  t.equal(sub.schedule, sched.id);
  t.equal(sub.items.data[0]!.price.id, intro.id);
  t.equal((await twin.stripe.invoices.retrieve(sub.latest_invoice as string)).total, 1000);

  await advanceDays(32);
  sub = await twin.stripe.subscriptions.retrieve(subId);
  t.equal(sub.items.data.length, 1);
  t.equal(sub.items.data[0]!.price.id, full.id, 'phase 2 price');
  const second = await twin.stripe.invoices.retrieve(sub.latest_invoice as string);
  t.equal(second.total, 3000, 'the renewal on the phase boundary bills the new phase, without prorations');
  const moved = await twin.stripe.subscriptionSchedules.retrieve(sched.id);
  t.equal(moved.current_phase?.start_date, sched.phases[1]!.start_date);
  await twin.hooks.waitFor('subscription_schedule.updated', (s) => s.id === sched.id && s.current_phase?.start_date === sched.phases[1]!.start_date);

  await advanceDays(31);
  t.equal((await twin.stripe.subscriptions.retrieve(subId)).status, 'active');
  await advanceDays(31);
  const done = await twin.stripe.subscriptionSchedules.retrieve(sched.id);
  t.equal(done.status, 'completed');
  t.ok(done.completed_at);
  t.equal(done.current_phase, null);
  t.equal((await twin.stripe.subscriptions.retrieve(subId)).status, 'canceled');
  await twin.hooks.waitFor('subscription_schedule.completed', (s) => s.id === sched.id);
  await twin.hooks.waitFor('customer.subscription.deleted', (s) => s.id === subId);
  checkSchema(t, 'subscription_schedule', await twin.raw(`/v1/subscription_schedules/${sched.id}`));
  const late = await twin.stripe.subscriptionSchedules.release(sched.id).catch((e) => e);
  t.equal(late.statusCode, 400);
});

t.test('a schedule starting later creates its subscription when the clock gets there', async (t) => {
  const price = await monthlyPrice(twin.stripe, 1500, 'Later');
  const { customer } = await customerWithCard(twin.stripe);
  const start = Math.floor(now / 1000) + 5 * DAY;
  const sched = await twin.stripe.subscriptionSchedules.create({
    customer: customer.id,
    start_date: start,
    phases: [{ items: [{ price: price.id }], duration: { interval: 'month', interval_count: 3 } }],
  });
  t.equal(sched.status, 'not_started');
  t.equal(sched.subscription, null);
  t.equal(sched.current_phase, null);
  const scheduled = await twin.stripe.subscriptionSchedules.list({ customer: customer.id, scheduled: true });
  t.same(
    scheduled.data.map((s) => s.id),
    [sched.id],
  );
  await advanceDays(6);
  const started = await twin.stripe.subscriptionSchedules.retrieve(sched.id);
  t.equal(started.status, 'active');
  const sub = await twin.stripe.subscriptions.retrieve(started.subscription as string);
  t.equal(sub.status, 'active');
  t.equal(sub.start_date, start);

  const released = await twin.stripe.subscriptionSchedules.release(sched.id);
  t.equal(released.status, 'released');
  t.equal(released.released_subscription, sub.id);
  t.equal(released.subscription, null);
  t.equal((await twin.stripe.subscriptions.retrieve(sub.id)).schedule, null);
  await twin.hooks.waitFor('subscription_schedule.released', (s) => s.id === sched.id);
});

t.test('from_subscription, update and cancel', async (t) => {
  const price = await monthlyPrice(twin.stripe, 2000, 'Existing');
  const bigger = await twin.stripe.prices.create({ product: price.product as string, unit_amount: 4000, currency: 'usd', recurring: { interval: 'month' } });
  const { customer } = await customerWithCard(twin.stripe);
  const sub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] });
  const sched = await twin.stripe.subscriptionSchedules.create({ from_subscription: sub.id });
  t.equal(sched.status, 'active');
  t.equal(sched.subscription, sub.id);
  t.equal(sched.end_behavior, 'release');
  t.equal(sched.phases[0]!.items[0]!.quantity, 2);
  t.equal(sched.phases[0]!.end_date, sub.items.data[0]!.current_period_end);
  const twice = await twin.stripe.subscriptionSchedules.create({ from_subscription: sub.id }).catch((e) => e);
  t.equal(twice.statusCode, 400);
  const mixed = await twin.stripe.subscriptionSchedules.create({ from_subscription: sub.id, customer: customer.id } as any).catch((e) => e);
  t.equal(mixed.statusCode, 400);

  const updated = await twin.stripe.subscriptionSchedules.update(sched.id, {
    phases: [
      { items: [{ price: price.id, quantity: 2 }], end_date: sched.phases[0]!.end_date, start_date: sched.phases[0]!.start_date } as any,
      // `iterations` left the API in 2025-09-30.clover (the SDK's version refuses it); `duration` replaced it.
      { items: [{ price: bigger.id, quantity: 1 }], duration: { interval: 'month', interval_count: 1 } },
    ],
    metadata: { plan: 'upgrade' },
  });
  t.equal(updated.phases.length, 2);
  const removed = await twin.stripe.subscriptionSchedules
    .update(sched.id, { phases: [{ items: [{ price: bigger.id, quantity: 1 }], iterations: 1 } as any] })
    .catch((e) => e);
  t.equal(removed.code, 'parameter_unknown');
  t.equal(removed.param, 'phases[0][iterations]');
  t.equal(updated.metadata?.plan, 'upgrade');
  await twin.hooks.waitFor('subscription_schedule.updated', (s) => s.id === sched.id && s.phases.length === 2);

  const canceled = await twin.stripe.subscriptionSchedules.cancel(sched.id);
  t.equal(canceled.status, 'canceled');
  t.ok(canceled.canceled_at);
  t.equal((await twin.stripe.subscriptions.retrieve(sub.id)).status, 'canceled');
  await twin.hooks.waitFor('subscription_schedule.canceled', (s) => s.id === sched.id);
  const missing = await twin.stripe.subscriptionSchedules.retrieve('sub_sched_missing').catch((e) => e);
  t.equal(missing.statusCode, 404);
  t.same(twin.hooks.rejected, []);
});

t.test('canceling the subscription itself cancels its schedule', async (t) => {
  const price = await monthlyPrice(twin.stripe, 1200, 'Direct');
  const { customer } = await customerWithCard(twin.stripe);
  const sched = await twin.stripe.subscriptionSchedules.create({
    customer: customer.id,
    phases: [{ items: [{ price: price.id }], duration: { interval: 'month', interval_count: 2 } }],
  });
  await twin.stripe.subscriptions.cancel(sched.subscription as string);
  const after = await twin.stripe.subscriptionSchedules.retrieve(sched.id);
  t.equal(after.status, 'canceled');
  t.ok(after.canceled_at);
  await twin.hooks.waitFor('subscription_schedule.canceled', (s) => s.id === sched.id);
  const events = await twin.stripe.events.list({ type: 'subscription_schedule.canceled', limit: 100 });
  t.equal(events.data.filter((e) => (e.data.object as Stripe.SubscriptionSchedule).id === sched.id).length, 1, 'one event');
});
