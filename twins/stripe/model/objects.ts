// The Stripe object kinds this twin keeps: record resource names, id prefixes and the words Stripe
// uses for them in messages ("No such payment_intent: 'pi_x'"). Records hold each object exactly
// as the API returns it.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { resourceMissing } from '../wire/errors.js';
import type { ParamSpec } from '../wire/params.js';

/** Stripe's address parameter shape (customers, billing details, shipping). */
export const ADDRESS_SPEC: ParamSpec = { city: true, country: true, line1: true, line2: true, postal_code: true, state: true };

/** A price's `recurring` parameter shape (prices, product default_price_data, inline price_data). */
export const RECURRING_SPEC: ParamSpec = { interval: true, interval_count: true, meter: true, usage_type: true, trial_period_days: true, aggregate_usage: true };

export type StripeObject = Record<string, any> & { id: string; object: string };

export interface ObjectKind {
  /** Record resource name. */
  resource: string;
  /** Id prefix (`cus_`). */
  prefix: string;
  /** Random part length after the prefix. */
  idLength: number;
  /** Word in Stripe's "No such …" messages. */
  noun: string;
}

export const KINDS = {
  customer: { resource: 'customer', prefix: 'cus_', idLength: 14, noun: 'customer' },
  product: { resource: 'product', prefix: 'prod_', idLength: 14, noun: 'product' },
  price: { resource: 'price', prefix: 'price_', idLength: 24, noun: 'price' },
  payment_method: { resource: 'payment_method', prefix: 'pm_', idLength: 24, noun: 'PaymentMethod' },
  setup_intent: { resource: 'setup_intent', prefix: 'seti_', idLength: 24, noun: 'setupintent' },
  payment_intent: { resource: 'payment_intent', prefix: 'pi_', idLength: 24, noun: 'payment_intent' },
  charge: { resource: 'charge', prefix: 'ch_', idLength: 24, noun: 'charge' },
  refund: { resource: 'refund', prefix: 're_', idLength: 24, noun: 'refund' },
  event: { resource: 'event', prefix: 'evt_', idLength: 24, noun: 'event' },
  webhook_endpoint: { resource: 'webhook_endpoint', prefix: 'we_', idLength: 24, noun: 'webhook endpoint' },
  subscription: { resource: 'subscription', prefix: 'sub_', idLength: 24, noun: 'subscription' },
  subscription_item: { resource: 'subscription_item', prefix: 'si_', idLength: 14, noun: 'subscription item' },
  invoice: { resource: 'invoice', prefix: 'in_', idLength: 24, noun: 'invoice' },
  checkout_session: { resource: 'checkout_session', prefix: 'cs_test_', idLength: 58, noun: 'checkout.session' },
  billing_meter: { resource: 'billing_meter', prefix: 'mtr_test_', idLength: 24, noun: 'billing meter' },
  test_clock: { resource: 'test_clock', prefix: 'clock_', idLength: 24, noun: 'test clock' },
} as const satisfies Record<string, ObjectKind>;

export type KindName = keyof typeof KINDS;

/** Every record kind the twin declares (the control plane's records endpoints accept these). */
export const STRIPE_RESOURCES = [
  'customer',
  'product',
  'price',
  'payment_method',
  'setup_intent',
  'payment_intent',
  'charge',
  'refund',
  'subscription',
  'subscription_item',
  'invoice',
  'checkout_session',
  'event',
  'webhook_endpoint',
  'billing_meter',
  'meter_event',
  'test_clock',
  'idempotency_key',
] as const;

export function newId(ctx: TwinContext, kind: KindName): string {
  const k = KINDS[kind];
  return ctx.ids.next(k.prefix, k.idLength);
}

/** Which kind an id belongs to, by its prefix (longest prefix first: `cs_test_` before `cs_`). */
export function kindOfId(id: string): ObjectKind | undefined {
  let best: ObjectKind | undefined;
  for (const k of Object.values(KINDS) as ObjectKind[]) {
    if (id.startsWith(k.prefix) && (!best || k.prefix.length > best.prefix.length)) best = k;
  }
  return best;
}

/** Load an object by id, or throw Stripe's 404 `resource_missing`. */
export function load<T extends StripeObject = StripeObject>(ctx: TwinContext, kind: KindName, id: string, param = 'id'): T {
  const found = ctx.store.get<T>(KINDS[kind].resource, id);
  if (!found) throw resourceMissing(KINDS[kind].noun, id, param);
  return found;
}

export function find<T extends StripeObject = StripeObject>(ctx: TwinContext, kind: KindName, id: string): T | undefined {
  return ctx.store.get<T>(KINDS[kind].resource, id);
}

export function save<T extends StripeObject>(ctx: TwinContext, kind: KindName, object: T): T {
  ctx.store.put(KINDS[kind].resource, object.id, object);
  return object;
}

/** The object Stripe answers after a delete. */
export function deletedObject(object: StripeObject): StripeObject {
  return { id: object.id, object: object.object, deleted: true };
}

/** Plain deep copy (records are JSON). */
export function clone<T>(v: T): T {
  return structuredClone(v);
}

/**
 * The top-level fields whose values changed, with their old values: the `previous_attributes`
 * of an `*.updated` event.
 */
export function previousAttributes(before: StripeObject, after: StripeObject): Record<string, unknown> {
  const prev: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) prev[key] = before[key] ?? null;
  }
  return prev;
}
