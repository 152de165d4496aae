// Which clock an object's time comes from: a test clock's `frozen_time` for customers attached to
// one (and their subscriptions and invoices), else the environment clock. Model code reads time
// from `ctx.clock`; these give it a context whose clock is the right one.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { EnvironmentClock } from '../../../twin-runtime/clock.js';
import { find, type StripeObject } from './objects.js';

/** A test clock's time with the environment clock's interface (moves forward only). */
class TestClockTime extends EnvironmentClock {
  private instant: number;

  constructor(ctx: TwinContext, frozenSeconds: number) {
    super(ctx.store, ctx.clock.now());
    this.instant = frozenSeconds * 1000;
  }

  override now(): Date {
    return new Date(this.instant);
  }

  override nowSeconds(): number {
    return Math.floor(this.instant / 1000);
  }

  override nowMs(): number {
    return this.instant;
  }

  override advanceTo(instant: Date | number): void {
    const t = typeof instant === 'number' ? instant : instant.getTime();
    if (t > this.instant) this.instant = t;
  }

  override resetTo(instant: Date): void {
    this.instant = instant.getTime();
  }
}

/** `ctx` with the given test clock's time as its clock. */
export function clockContext(ctx: TwinContext, clock: StripeObject): TwinContext {
  return { ...ctx, clock: new TestClockTime(ctx, clock.frozen_time as number) };
}

/** The context a customer's objects live in: its test clock's time, or the environment's. */
export function contextForCustomer(ctx: TwinContext, customerId: string | null | undefined): TwinContext {
  if (!customerId || ctx.clock instanceof TestClockTime) return ctx;
  const clockId = find(ctx, 'customer', customerId)?.test_clock as string | null | undefined;
  const clock = clockId ? find(ctx, 'test_clock', clockId) : undefined;
  return clock ? clockContext(ctx, clock) : ctx;
}

/** The context for an existing subscription or invoice (its customer's clock). */
export function contextForObject(ctx: TwinContext, kind: 'subscription' | 'invoice', id: string): TwinContext {
  return contextForCustomer(ctx, find(ctx, kind, id)?.customer as string | undefined);
}
