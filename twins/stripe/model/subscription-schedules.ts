// Subscription schedules (`sub_sched_`): phases of items that a subscription moves through on
// the clock. A schedule starting now creates its subscription at once; one starting later creates
// it when the clock reaches `start_date`. At each phase end the subscription takes the next
// phase's items (prorated as the phase says); after the last phase the schedule completes and the
// subscription is released (keeps running) or canceled, per `end_behavior`. `release` lets go of
// the subscription early; `cancel` cancels it with the schedule. Phase ends come from `end_date`,
// `duration` or `iterations` (billing periods of the phase's first price; 1 when none is given).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, load, newId, previousAttributes, save, type MetadataPatch, type StripeJson, type StripeObject } from './objects.js';
import { contextForCustomer } from './clock-scope.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow, type MoreConditions } from './pages.js';
import { getCustomer } from './customers.js';
import { addCycles, type Interval } from './billing-cycle.js';
import { loadRecurringPrice, planOf, recurrenceOf, subscriptionItems } from './subscription-items.js';
import { resolvePrice, type PriceRef } from './prices.js';
import {
  type PRORATION_BEHAVIORS,
  cancelSubscriptionNow,
  createSubscription,
  loadSubscription,
  updateAndEmit,
  updateSubscription,
  type SubscriptionItemChange,
} from './subscriptions.js';

export const END_BEHAVIORS = ['cancel', 'release'] as const;

/** A phase as the schedule object embeds it. */
type Phase = StripeJson;

export interface PhaseInput {
  /** `ownPrice`: a price the schedule already holds (its subscription's, maybe archived inline ones). */
  items: (PriceRef & { quantity?: number; ownPrice?: boolean })[];
  endDate?: number;
  iterations?: number;
  duration?: { interval: Interval; intervalCount?: number };
  prorationBehavior?: (typeof PRORATION_BEHAVIORS)[number];
  metadata?: MetadataPatch;
  description?: string;
}

export interface ScheduleCreate {
  customer?: string;
  fromSubscription?: string;
  startDate?: number | 'now';
  endBehavior?: (typeof END_BEHAVIORS)[number];
  phases?: PhaseInput[];
  metadata?: MetadataPatch;
}

export interface ScheduleUpdate {
  phases?: PhaseInput[];
  endBehavior?: (typeof END_BEHAVIORS)[number];
  metadata?: MetadataPatch;
  prorationBehavior?: (typeof PRORATION_BEHAVIORS)[number];
}

function phaseObject(ctx: TwinContext, input: PhaseInput, start: number, i: number, last: boolean): Phase {
  const at = `phases[${i}]`;
  if (!input.items?.length) throw missingParam(`${at}[items]`);
  const prices = input.items.map((it, j) => {
    const item = `${at}[items][${j}]`;
    return loadRecurringPrice(ctx, resolvePrice(ctx, it, item), `${item}[price]`, it.priceData !== undefined || it.ownPrice === true);
  });
  let end: number;
  if (input.endDate !== undefined) {
    if (input.endDate <= start) throw invalidRequest(`The end_date of phase ${i} must be after its start_date.`, `${at}[end_date]`);
    end = input.endDate;
  } else if (input.duration) {
    end = addCycles(start, { interval: input.duration.interval, interval_count: input.duration.intervalCount ?? 1 }, 1);
  } else {
    if (input.iterations === undefined && !last)
      throw invalidRequest(`Phase ${i} needs an \`end_date\`, \`duration\` or \`iterations\`: only the last phase may leave it out.`, `${at}[end_date]`);
    end = addCycles(start, recurrenceOf(prices[0]!), input.iterations ?? 1);
  }
  return {
    add_invoice_items: [],
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: null,
    billing_thresholds: null,
    collection_method: null,
    coupon: null,
    currency: prices[0]!.currency,
    default_payment_method: null,
    default_tax_rates: [],
    description: input.description ?? null,
    discounts: [],
    end_date: end,
    invoice_settings: null,
    items: input.items.map((it, j) => ({
      billing_thresholds: null,
      discounts: [],
      metadata: {},
      plan: planOf(prices[j]!).id,
      price: prices[j]!.id,
      quantity: it.quantity ?? 1,
      tax_rates: [],
    })),
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    on_behalf_of: null,
    proration_behavior: input.prorationBehavior ?? 'create_prorations',
    start_date: start,
    transfer_data: null,
    trial_end: null,
  };
}

function buildPhases(ctx: TwinContext, inputs: PhaseInput[], start: number): Phase[] {
  if (inputs.length === 0) throw missingParam('phases');
  const phases: Phase[] = [];
  let at = start;
  inputs.forEach((p, i) => {
    const phase = phaseObject(ctx, p, at, i, i === inputs.length - 1);
    phases.push(phase);
    at = phase.end_date;
  });
  return phases;
}

function currentPhase(sched: StripeObject, now: number): Phase | undefined {
  return (sched.phases as Phase[]).find((p) => p.start_date <= now && now < p.end_date);
}

function withCurrentPhase(sched: StripeObject, now: number): StripeObject {
  const p = sched.status === 'active' ? currentPhase(sched, now) : undefined;
  sched.current_phase = p ? { end_date: p.end_date, start_date: p.start_date } : null;
  return sched;
}

function setSubscriptionSchedule(ctx: TwinContext, subId: string, schedule: string | null): void {
  const before = loadSubscription(ctx, subId);
  if (before.schedule === schedule) return;
  updateAndEmit(ctx, before, { ...clone(before), schedule });
}

/** Start the schedule's subscription with the first phase's items (`subscription_schedule.created` comes before). */
function startSubscription(ctx: TwinContext, sched: StripeObject): void {
  const phase = (sched.phases as Phase[])[0]!;
  const sub = createSubscription(ctx, {
    customer: sched.customer,
    items: (phase.items as Phase[]).map((it) => ({ price: it.price, quantity: it.quantity, ownPrice: true })),
    description: phase.description ?? undefined,
  });
  sched.subscription = sub.id;
  sched.status = 'active';
  setSubscriptionSchedule(ctx, sub.id, sched.id);
}

function newSchedule(
  ctx: TwinContext,
  customer: StripeObject,
  phases: Phase[],
  opts: { endBehavior?: (typeof END_BEHAVIORS)[number]; metadata?: MetadataPatch },
): StripeObject {
  return {
    id: newId(ctx, 'subscription_schedule'),
    object: 'subscription_schedule',
    application: null,
    billing_mode: { flexible: null, type: 'classic' },
    canceled_at: null,
    completed_at: null,
    created: ctx.clock.nowSeconds(),
    current_phase: null,
    customer: customer.id,
    customer_account: null,
    default_settings: {
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: 'automatic',
      billing_thresholds: null,
      collection_method: 'charge_automatically',
      default_payment_method: null,
      description: null,
      invoice_settings: { account_tax_ids: null, days_until_due: null, issuer: { type: 'self' } },
      on_behalf_of: null,
      transfer_data: null,
    },
    end_behavior: opts.endBehavior ?? 'release',
    livemode: false,
    metadata: opts.metadata === undefined ? {} : applyMetadata({}, opts.metadata),
    phases,
    released_at: null,
    released_subscription: null,
    status: 'not_started',
    subscription: null,
    test_clock: customer.test_clock ?? null,
  };
}

export function createSchedule(ctx: TwinContext, input: ScheduleCreate): StripeObject {
  if (input.fromSubscription) {
    if (input.customer || input.phases || input.startDate !== undefined || input.endBehavior) {
      throw invalidRequest('You cannot set `customer`, `phases`, `start_date` or `end_behavior` when `from_subscription` is set.', 'from_subscription');
    }
    return scheduleFromSubscription(ctx, input.fromSubscription, input.metadata);
  }
  if (!input.customer) throw missingParam('customer');
  ctx = contextForCustomer(ctx, input.customer);
  const customer = getCustomer(ctx, input.customer);
  const now = ctx.clock.nowSeconds();
  const start = input.startDate === undefined || input.startDate === 'now' ? now : input.startDate;
  if (start < now - 60) throw invalidRequest('The start_date cannot be in the past.', 'start_date');
  const phases = buildPhases(ctx, input.phases ?? [], start);
  const sched = newSchedule(ctx, customer, phases, { endBehavior: input.endBehavior, metadata: input.metadata });
  save(ctx, 'subscription_schedule', sched);
  if (start <= now) startSubscription(ctx, sched);
  withCurrentPhase(sched, now);
  save(ctx, 'subscription_schedule', sched);
  emitEvent(ctx, 'subscription_schedule.created', sched);
  return sched;
}

/** A schedule taking over a subscription: one phase with its items until the current period ends. */
function scheduleFromSubscription(ctx: TwinContext, subId: string, metadata: MetadataPatch | undefined): StripeObject {
  const sub = loadSubscription(ctx, subId, 'from_subscription');
  if (sub.schedule) throw invalidRequest(`The subscription ${sub.id} is already managed by the subscription schedule ${sub.schedule}.`, 'from_subscription');
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired')
    throw invalidRequest('You cannot create a schedule from a canceled subscription.', 'from_subscription');
  ctx = contextForCustomer(ctx, sub.customer);
  const now = ctx.clock.nowSeconds();
  const items = subscriptionItems(sub).map((it) => ({ price: it.price.id as string, quantity: (it.quantity ?? 1) as number, ownPrice: true }));
  const phase = phaseObject(ctx, { items, endDate: sub.current_period_end }, sub.current_period_start, 0, true);
  const sched = newSchedule(ctx, getCustomer(ctx, sub.customer), [phase], { endBehavior: 'release', metadata });
  sched.status = 'active';
  sched.subscription = sub.id;
  withCurrentPhase(sched, now);
  save(ctx, 'subscription_schedule', sched);
  setSubscriptionSchedule(ctx, sub.id, sched.id);
  emitEvent(ctx, 'subscription_schedule.created', sched);
  return sched;
}

export function getSchedule(ctx: TwinContext, id: string, param = 'schedule'): StripeObject {
  return withCurrentPhase(clone(load(ctx, 'subscription_schedule', id, param)), ctx.clock.nowSeconds());
}

/** Item changes that turn the subscription's items into a phase's. */
function itemChanges(sub: StripeObject, phase: Phase): SubscriptionItemChange[] {
  const current = subscriptionItems(sub);
  const wanted = phase.items as { price: string; quantity: number }[];
  const changes: SubscriptionItemChange[] = [];
  const kept = new Set<string>();
  for (const w of wanted) {
    const match = current.find((c) => c.price.id === w.price && !kept.has(c.id));
    if (match) {
      kept.add(match.id);
      if (match.quantity !== w.quantity) changes.push({ id: match.id, quantity: w.quantity });
    } else changes.push({ price: w.price, quantity: w.quantity, ownPrice: true });
  }
  for (const c of current) if (!kept.has(c.id)) changes.push({ id: c.id, deleted: true });
  return changes;
}

function applyPhase(ctx: TwinContext, sched: StripeObject, phase: Phase, proration?: (typeof PRORATION_BEHAVIORS)[number]): void {
  if (!sched.subscription) return;
  const sub = loadSubscription(ctx, sched.subscription);
  const changes = itemChanges(sub, phase);
  if (changes.length === 0) return;
  // New items first, deletions last: a subscription is never left without items in between.
  changes.sort((a, b) => Number(Boolean(a.deleted)) - Number(Boolean(b.deleted)));
  updateSubscription(ctx, sub.id, { items: changes, prorationBehavior: proration ?? phase.proration_behavior });
}

export function updateSchedule(ctx: TwinContext, id: string, input: ScheduleUpdate): StripeObject {
  const before = getSchedule(ctx, id, 'schedule');
  if (before.status === 'canceled' || before.status === 'completed' || before.status === 'released') {
    throw invalidRequest(`You cannot update a subscription schedule that is \`${before.status}\`.`, 'schedule');
  }
  const sched = clone(before);
  const now = ctx.clock.nowSeconds();
  if (input.endBehavior) sched.end_behavior = input.endBehavior;
  if (input.metadata !== undefined) sched.metadata = applyMetadata(sched.metadata ?? {}, input.metadata);
  if (input.phases) {
    const start = (before.phases as Phase[])[0]?.start_date ?? now;
    sched.phases = buildPhases(ctx, input.phases, start);
    if (sched.status === 'active' && !currentPhase(sched, now)) throw invalidRequest('The phases must cover the current time of an active schedule.', 'phases');
  }
  save(ctx, 'subscription_schedule', sched);
  const phase = sched.status === 'active' ? currentPhase(sched, now) : undefined;
  if (phase && input.phases) applyPhase(ctx, sched, phase, input.prorationBehavior);
  withCurrentPhase(sched, now);
  save(ctx, 'subscription_schedule', sched);
  const prev = previousAttributes(before, sched);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'subscription_schedule.updated', sched, prev);
  return sched;
}

/**
 * End the schedule (`subscription_schedule.<status>`) and do `subscription` to its subscription:
 * cancel it, release it (it keeps running, no longer scheduled), or leave it (already ended).
 */
function endSchedule(
  ctx: TwinContext,
  id: string,
  status: 'released' | 'canceled' | 'completed',
  opts: { subscription: 'cancel' | 'release' | 'leave'; invoiceNow?: boolean },
): StripeObject {
  const before = getSchedule(ctx, id, 'schedule');
  if (before.status !== 'active' && before.status !== 'not_started') {
    throw invalidRequest(`You cannot ${status === 'released' ? 'release' : 'cancel'} a subscription schedule that is \`${before.status}\`.`, 'schedule');
  }
  const sched = clone(before);
  const now = ctx.clock.nowSeconds();
  const subId = sched.subscription as string | null;
  sched.status = status;
  if (status === 'released') {
    sched.released_at = now;
    sched.released_subscription = subId;
    sched.subscription = null;
  } else if (status === 'canceled') sched.canceled_at = now;
  else sched.completed_at = now;
  withCurrentPhase(sched, now);
  // Stored before the subscription changes: its cancellation then finds the schedule already ended.
  save(ctx, 'subscription_schedule', sched);
  if (subId && opts.subscription === 'cancel') {
    const sub = find(ctx, 'subscription', subId);
    if (sub && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
      cancelSubscriptionNow(ctx, sub.id, { reason: 'cancellation_requested', invoiceNow: opts.invoiceNow ?? false });
    }
  } else if (subId && opts.subscription === 'release') setSubscriptionSchedule(ctx, subId, null);
  emitEvent(ctx, `subscription_schedule.${status}`, sched, previousAttributes(before, sched));
  return sched;
}

export function releaseSchedule(ctx: TwinContext, id: string): StripeObject {
  return endSchedule(ctx, id, 'released', { subscription: 'release' });
}

export function cancelSchedule(ctx: TwinContext, id: string, opts: { invoiceNow?: boolean }): StripeObject {
  return endSchedule(ctx, id, 'canceled', { subscription: 'cancel', invoiceNow: opts.invoiceNow });
}

/** The schedule's subscription was canceled on its own (API or dunning): the schedule is canceled too. */
export function scheduledSubscriptionCanceled(ctx: TwinContext, scheduleId: string): void {
  const sched = find(ctx, 'subscription_schedule', scheduleId);
  if (sched && (sched.status === 'active' || sched.status === 'not_started')) endSchedule(ctx, scheduleId, 'canceled', { subscription: 'leave' });
}

/** One page of schedules, newest first; `scheduled` means not started yet. */
export function listSchedules(ctx: TwinContext, f: { customer?: string; scheduled?: boolean }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  const more: MoreConditions = {};
  if (f.customer !== undefined) equals.customer = f.customer;
  if (f.scheduled === true) equals.status = 'not_started';
  if (f.scheduled === false) more.noneOf = { status: ['not_started'] };
  const page = readPage<StripeObject>(ctx, 'subscription_schedule', equals, window, more);
  const now = ctx.clock.nowSeconds();
  return { ...page, data: page.data.map((s) => withCurrentPhase(s, now)) };
}

// ---------------------------------------------------------------------------------------------
// The clock: a not-started schedule starts; an active one moves to its next phase, or completes.

export interface ScheduleStep {
  at: number;
  id: string;
  valid(): boolean;
  run(): void;
}

/** The next moment each of the `live` (active or not started) schedules needs the clock, up to `until`. */
export function scheduleSteps(ctx: TwinContext, until: number, live: StripeObject[]): ScheduleStep[] {
  const steps: ScheduleStep[] = [];
  for (const s of live) {
    if (s.status !== 'active' && s.status !== 'not_started') continue;
    // The stored `current_phase` is the phase the clock last reached: its end is the next boundary.
    const at: number | undefined = s.status === 'not_started' ? (s.phases as Phase[])[0]!.start_date : s.current_phase?.end_date;
    if (at === undefined || at > until) continue;
    const status = s.status;
    steps.push({
      at,
      id: s.id,
      valid: () => ctx.store.get<StripeObject>('subscription_schedule', s.id)?.status === status,
      run: () => stepSchedule(ctx, s.id, at),
    });
  }
  return steps;
}

function stepSchedule(ctx: TwinContext, id: string, at: number): void {
  const sched = clone(load(ctx, 'subscription_schedule', id));
  const before = withCurrentPhase(clone(sched), at - 1);
  if (sched.status === 'not_started') {
    startSubscription(ctx, sched);
  } else {
    const next = (sched.phases as Phase[]).find((p) => p.start_date === at);
    if (!next) {
      save(ctx, 'subscription_schedule', sched);
      endSchedule(ctx, id, 'completed', { subscription: sched.end_behavior === 'cancel' ? 'cancel' : 'release' });
      return;
    }
    applyPhase(ctx, sched, next);
  }
  withCurrentPhase(sched, at);
  save(ctx, 'subscription_schedule', sched);
  emitEvent(ctx, 'subscription_schedule.updated', sched, previousAttributes(before, sched));
}
