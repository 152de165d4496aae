// What other resources read from a subscription without its rules: prices as subscription items
// see them (recurrence, metered or licensed, the legacy `plan` view), a subscription's items, and
// the payment method its invoices charge. Kept apart from subscriptions.ts so invoices and
// checkout can read them without depending on the subscription lifecycle.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { find, load, type StripeObject } from './objects.js';
import type { Recurrence } from './billing-cycle.js';

export function recurrenceOf(price: StripeObject): Recurrence {
  return { interval: price.recurring.interval, interval_count: price.recurring.interval_count ?? 1 };
}

export function isMetered(price: StripeObject): boolean {
  return price.recurring?.usage_type === 'metered';
}

/** A recurring price, or Stripe's 400/404 for the param that named it. */
/** A recurring price an item may take; `inline`: made by this request's `price_data` (archived from birth, yet usable by it). */
export function loadRecurringPrice(ctx: TwinContext, id: string, param: string, inline = false): StripeObject {
  const price = load(ctx, 'price', id, param);
  if (price.type !== 'recurring' || !price.recurring) {
    throw invalidRequest(`The price specified is set to \`type=one_time\` but this field only accepts prices with \`type=recurring\`.`, param);
  }
  if (price.active === false && !inline) {
    throw invalidRequest(`The price specified is inactive. This field only accepts active prices.`, param);
  }
  return price;
}

/** The legacy `plan` view of a recurring price (still on items and lines). */
export function planOf(price: StripeObject): StripeObject {
  const r = price.recurring ?? {};
  return {
    id: price.id,
    object: 'plan',
    active: price.active ?? true,
    amount: price.unit_amount ?? null,
    amount_decimal: price.unit_amount_decimal ?? (price.unit_amount == null ? null : String(price.unit_amount)),
    billing_scheme: price.billing_scheme ?? 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: r.interval,
    interval_count: r.interval_count ?? 1,
    livemode: false,
    metadata: price.metadata ?? {},
    meter: r.meter ?? null,
    nickname: price.nickname ?? null,
    product: price.product,
    tiers_mode: price.tiers_mode ?? null,
    transform_usage: null,
    trial_period_days: r.trial_period_days ?? null,
    usage_type: r.usage_type ?? 'licensed',
  };
}

export function subscriptionItems(sub: StripeObject): StripeObject[] {
  return sub.items.data as StripeObject[];
}

/**
 * The payment method renewals charge: the subscription's default, else the customer's
 * `invoice_settings.default_payment_method` (Stripe's order of precedence).
 */
export function subscriptionPaymentMethod(ctx: TwinContext, sub: StripeObject): string | null {
  if (sub.default_payment_method) return sub.default_payment_method;
  const customer = find(ctx, 'customer', sub.customer);
  return customer?.invoice_settings?.default_payment_method ?? customer?.default_source ?? null;
}
