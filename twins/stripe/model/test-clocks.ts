// Test clocks, as on Stripe: each clock keeps its own `frozen_time` (any instant, past or future)
// for the customers attached to it and their subscriptions and invoices, and moves only by its
// own `advance`, which runs the billing lifecycle for those objects alone. The environment clock
// (the control plane's advance) never moves clock-bound objects, and a clock's advance never
// moves the environment. Model code reads time from `ctx.clock`; `clockContext` gives it a
// context whose clock is the test clock's.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { clone, load, newId, type StripeObject } from './objects.js';
import { eachMatching, readPage, type ListPage, type ListWindow } from './pages.js';
import { clockContext } from './clock-scope.js';
import { emitEvent } from './events.js';
import { advanceStripe } from './lifecycle.js';
import { cancelSubscriptionNow } from './subscriptions.js';
import { deleteCustomer } from './customers.js';

const LIVE_OR_PENDING = ['active', 'past_due', 'trialing', 'unpaid', 'incomplete', 'paused'];

const DELETES_AFTER = 30 * 86_400;

export function createTestClock(ctx: TwinContext, input: { frozenTime?: number; name?: string }): StripeObject {
  const frozen = input.frozenTime;
  if (frozen === undefined) throw missingParam('frozen_time');
  const name = input.name ?? null;
  if (name !== null && name.length > 300) throw invalidRequest('Invalid string: name must be at most 300 characters.', 'name');
  const now = ctx.clock.nowSeconds();
  const clock: StripeObject = {
    id: newId(ctx, 'test_clock'),
    object: 'test_helpers.test_clock',
    created: now,
    deletes_after: now + DELETES_AFTER,
    frozen_time: frozen,
    livemode: false,
    name,
    status: 'ready',
    status_details: {},
  };
  ctx.store.put('test_clock', clock.id, clock);
  emitEvent(ctx, 'test_helpers.test_clock.created', clock);
  return clock;
}

export function loadTestClock(ctx: TwinContext, id: string): StripeObject {
  return load(ctx, 'test_clock', id, 'test_clock');
}

/**
 * Advance: `test_helpers.test_clock.advancing`, every lifecycle step due for the clock's objects
 * (at the clock's instants), then `...ready`.
 */
export function advanceTestClock(ctx: TwinContext, id: string, to: number | undefined): StripeObject {
  const clock = loadTestClock(ctx, id);
  if (to === undefined) throw missingParam('frozen_time');
  const current = clock.frozen_time as number;
  if (to <= current) {
    throw invalidRequest(`The test clock's \`frozen_time\` must be after its current value (${current}); test clocks can only move forward.`, 'frozen_time');
  }
  const advancing = { ...clone(clock), status: 'advancing', status_details: { advancing: { target_frozen_time: to } } };
  emitEvent(ctx, 'test_helpers.test_clock.advancing', advancing);
  advanceStripe(clockContext(ctx, clock), new Date(to * 1000), id);
  const ready: StripeObject = { ...clone(clock), frozen_time: to, status: 'ready', status_details: {} };
  ctx.store.put('test_clock', id, ready);
  emitEvent(ctx, 'test_helpers.test_clock.ready', ready);
  return ready;
}

/** `GET /v1/test_helpers/test_clocks`: one page. */
export function listTestClocks(ctx: TwinContext, window: ListWindow): ListPage<StripeObject> {
  return readPage<StripeObject>(ctx, 'test_clock', {}, window);
}

/** Deleting a clock deletes its customers, ending their subscriptions first (as Stripe does). */
export function deleteTestClock(ctx: TwinContext, id: string): StripeObject {
  const clock = loadTestClock(ctx, id);
  const at = clockContext(ctx, clock);
  // Gathered first: the deletions below rewrite the records the reads walk.
  for (const customer of [...eachMatching<StripeObject>(ctx, 'customer', { test_clock: id })]) {
    if (customer.deleted) continue;
    for (const sub of [...eachMatching<StripeObject>(ctx, 'subscription', { customer: customer.id })]) {
      if (LIVE_OR_PENDING.includes(sub.status)) cancelSubscriptionNow(at, sub.id, { reason: 'cancellation_requested' });
    }
    deleteCustomer(at, customer.id);
  }
  ctx.store.delete('test_clock', id);
  emitEvent(ctx, 'test_helpers.test_clock.deleted', clock);
  return { id, object: 'test_helpers.test_clock', deleted: true };
}
