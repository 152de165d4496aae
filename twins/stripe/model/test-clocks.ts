// Test clocks, mapped onto the environment clock. A twin environment has one clock, so every test
// clock shows the environment's current instant as its `frozen_time`; advancing any test clock
// advances the environment and runs the same lifecycle the control plane's advance runs. A clock
// cannot be created or advanced to an instant before the environment's clock (the twin cannot go
// back in time); creating one in the future advances the environment to it.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { clone, load, newId, type StripeObject } from './objects.js';
import { emitEvent } from './events.js';
import { advanceStripe } from './lifecycle.js';
import { cancelSubscriptionNow } from './subscriptions.js';
import { deleteCustomer } from './customers.js';

const LIVE_OR_PENDING = ['active', 'past_due', 'trialing', 'unpaid', 'incomplete', 'paused'];

const DELETES_AFTER = 30 * 86_400;

/** The clock as the API answers it: frozen at the environment's instant. */
export function presentClock(ctx: TwinContext, clock: StripeObject): StripeObject {
  return { ...clock, frozen_time: Math.max(clock.frozen_time, ctx.clock.nowSeconds()) };
}

function tooEarly(ctx: TwinContext, param: string): never {
  throw invalidRequest(
    `The twin's test clocks share the environment clock, which is already at ${ctx.clock.nowSeconds()} (${ctx.clock.now().toISOString()}); \`${param}\` cannot be earlier.`,
    param,
  );
}

function moveEnvironment(ctx: TwinContext, to: number): void {
  if (to <= ctx.clock.nowSeconds()) return;
  advanceStripe(ctx, new Date(to * 1000));
  ctx.clock.advanceTo(to * 1000);
}

export function createTestClock(ctx: TwinContext, input: { frozenTime?: number; name?: string }): StripeObject {
  const frozen = input.frozenTime;
  if (frozen === undefined) throw missingParam('frozen_time');
  if (frozen < ctx.clock.nowSeconds()) tooEarly(ctx, 'frozen_time');
  const name = input.name ?? null;
  if (name !== null && name.length > 300) throw invalidRequest('Invalid string: name must be at most 300 characters.', 'name');
  moveEnvironment(ctx, frozen);
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

/** Advance: `test_helpers.test_clock.advancing`, every lifecycle step due, then `...ready`. */
export function advanceTestClock(ctx: TwinContext, id: string, to: number | undefined): StripeObject {
  const clock = loadTestClock(ctx, id);
  if (to === undefined) throw missingParam('frozen_time');
  const current = presentClock(ctx, clock).frozen_time as number;
  if (to <= current) {
    throw invalidRequest(`Cannot advance the test clock to a time before or equal to its current frozen time (${current}).`, 'frozen_time');
  }
  const advancing = { ...clone(clock), status: 'advancing', status_details: { advancing: { target_frozen_time: to } } };
  emitEvent(ctx, 'test_helpers.test_clock.advancing', advancing);
  moveEnvironment(ctx, to);
  const ready: StripeObject = { ...clone(clock), frozen_time: to, status: 'ready', status_details: {} };
  ctx.store.put('test_clock', id, ready);
  emitEvent(ctx, 'test_helpers.test_clock.ready', ready);
  return ready;
}

/** Deleting a clock deletes its customers, ending their subscriptions first (as Stripe does). */
export function deleteTestClock(ctx: TwinContext, id: string): StripeObject {
  const clock = loadTestClock(ctx, id);
  for (const customer of ctx.store.list<StripeObject>('customer')) {
    if (customer.test_clock !== id || customer.deleted) continue;
    for (const sub of ctx.store.list<StripeObject>('subscription')) {
      if (sub.customer === customer.id && LIVE_OR_PENDING.includes(sub.status)) {
        cancelSubscriptionNow(ctx, sub.id, { reason: 'cancellation_requested' });
      }
    }
    deleteCustomer(ctx, customer.id);
  }
  ctx.store.delete('test_clock', id);
  emitEvent(ctx, 'test_helpers.test_clock.deleted', presentClock(ctx, clock));
  return { id, object: 'test_helpers.test_clock', deleted: true };
}
