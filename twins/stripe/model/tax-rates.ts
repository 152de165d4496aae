// Tax rates (`txr_`): a percentage, inclusive or exclusive, applied to invoice lines through a
// subscription's or invoice's `default_tax_rates` or an item's own `tax_rates`; and the tax an
// invoice line owes under them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export const TAX_TYPES = [
  'amusement_tax',
  'communications_tax',
  'gst',
  'hst',
  'igst',
  'jct',
  'lease_tax',
  'pst',
  'qst',
  'retail_delivery_fee',
  'rst',
  'sales_tax',
  'service_tax',
  'vat',
] as const;

export interface TaxRateFields {
  active?: boolean;
  country?: string | null;
  description?: string | null;
  displayName?: string;
  jurisdiction?: string | null;
  state?: string | null;
  taxType?: (typeof TAX_TYPES)[number] | null;
  metadata?: MetadataPatch;
}

export interface TaxRateCreate extends TaxRateFields {
  displayName: string;
  percentage: number;
  inclusive: boolean;
}

function applyFields(r: StripeObject, input: TaxRateFields): void {
  if (input.active !== undefined) r.active = input.active;
  if (input.country !== undefined) r.country = input.country;
  if (input.description !== undefined) r.description = input.description;
  if (input.displayName !== undefined) r.display_name = input.displayName;
  if (input.jurisdiction !== undefined) r.jurisdiction = input.jurisdiction;
  if (input.state !== undefined) r.state = input.state;
  if (input.taxType !== undefined) r.tax_type = input.taxType;
  if (input.metadata !== undefined) r.metadata = applyMetadata(r.metadata ?? {}, input.metadata);
}

export function createTaxRate(ctx: TwinContext, input: TaxRateCreate): StripeObject {
  if (!(input.percentage >= 0 && input.percentage <= 100)) throw invalidRequest('Invalid percentage: must be between 0 and 100.', 'percentage');
  if (input.displayName.length > 50) throw invalidRequest('Invalid string: display_name must be at most 50 characters.', 'display_name');
  const rate: StripeObject = {
    id: newId(ctx, 'tax_rate'),
    object: 'tax_rate',
    active: true,
    country: null,
    created: ctx.clock.nowSeconds(),
    description: null,
    display_name: input.displayName,
    effective_percentage: input.percentage,
    flat_amount: null,
    inclusive: input.inclusive,
    jurisdiction: null,
    jurisdiction_level: null,
    livemode: false,
    metadata: {},
    percentage: input.percentage,
    rate_type: 'percentage',
    state: null,
    tax_type: null,
  };
  applyFields(rate, input);
  save(ctx, 'tax_rate', rate);
  emitEvent(ctx, 'tax_rate.created', rate);
  return rate;
}

export function getTaxRate(ctx: TwinContext, id: string, param = 'tax_rate'): StripeObject {
  const r = find(ctx, 'tax_rate', id);
  if (!r) throw resourceMissing('tax_rate', id, param);
  return r;
}

export function updateTaxRate(ctx: TwinContext, id: string, input: TaxRateFields): StripeObject {
  const before = getTaxRate(ctx, id, 'id');
  const r = clone(before);
  applyFields(r, input);
  save(ctx, 'tax_rate', r);
  const prev = previousAttributes(before, r);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'tax_rate.updated', r, prev);
  return r;
}

export function listTaxRates(ctx: TwinContext, f: { active?: boolean; inclusive?: boolean }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.active !== undefined) equals.active = f.active;
  if (f.inclusive !== undefined) equals.inclusive = f.inclusive;
  return readPage<StripeObject>(ctx, 'tax_rate', equals, window);
}

/** Active tax rates by id for a `tax_rates[]` / `default_tax_rates[]` parameter (objects, as Stripe embeds them). */
export function loadTaxRates(ctx: TwinContext, ids: string[], param: string): StripeObject[] {
  return ids.map((id, i) => {
    const r = getTaxRate(ctx, id, `${param}[${i}]`);
    if (!r.active) throw invalidRequest(`Tax rate ${id} is inactive and cannot be applied.`, `${param}[${i}]`);
    return r;
  });
}

export interface LineTax {
  amount: number;
  tax_behavior: 'exclusive' | 'inclusive';
  tax_rate_details: { tax_rate: string };
  taxability_reason: 'standard_rated';
  taxable_amount: number;
  type: 'tax_rate_details';
}

/**
 * The tax `rates` put on a line worth `amount` after discounts: exclusive rates add
 * `amount × p%`; inclusive rates take the tax out of the amount (`amount − amount / (1 + p%)`).
 */
export function lineTaxes(amount: number, rates: StripeObject[]): LineTax[] {
  return rates.map((r) => {
    const p = Number(r.percentage) / 100;
    const tax = r.inclusive ? amount - Math.round(amount / (1 + p)) : Math.round(amount * p);
    return {
      amount: tax,
      tax_behavior: r.inclusive ? 'inclusive' : 'exclusive',
      tax_rate_details: { tax_rate: r.id },
      taxability_reason: 'standard_rated',
      taxable_amount: r.inclusive ? amount - tax : amount,
      type: 'tax_rate_details',
    };
  });
}
