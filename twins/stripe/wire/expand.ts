// `expand[]`: replace an id with the object it names, along dotted paths (`latest_charge`,
// `data.customer`, `latest_invoice.payment_intent.payment_method`), at most four levels deep as
// Stripe allows. Lists are walked through their `data`, arrays element by element.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { isForbiddenKey } from '../../../twin-runtime/safe-input.js';
import { invalidRequest } from './errors.js';
import { kindOfId, type StripeObject } from '../model/objects.js';
import { chargeRefundList } from '../model/refunds.js';
import { customerTaxIdList } from '../model/tax-ids.js';
import { customerSourceList } from '../model/tokens.js';

/** How an expanded object is rendered (the request's API version). */
type Render = <T>(object: T) => T;

/** Fields an object shows only when `expand[]` names them (Stripe's includable fields). */
const INCLUDABLE: Record<string, Record<string, (ctx: TwinContext, holder: StripeObject) => unknown>> = {
  // Since 2022-11-15 a charge carries its refunds only when asked (wire/versions.ts).
  charge: { refunds: (ctx, charge) => chargeRefundList(ctx, charge.id) },
  customer: { tax_ids: (ctx, customer) => customerTaxIdList(ctx, customer.id), sources: (ctx, customer) => customerSourceList(ctx, customer.id) },
};

const MAX_DEPTH = 4;

/** Objects a plain id may not be expanded into (secrets stay out of expansions). */
function loadById(ctx: TwinContext, id: string, render: Render): StripeObject | undefined {
  const kind = kindOfId(id);
  if (!kind) return undefined;
  const found = ctx.store.get<StripeObject>(kind.resource, id);
  if (found && kind.resource === 'webhook_endpoint') delete found.secret;
  return found && render(found);
}

function expandAt(ctx: TwinContext, node: unknown, segments: string[], fullPath: string, render: Render): void {
  if (node === null || node === undefined || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) expandAt(ctx, item, segments, fullPath, render);
    return;
  }
  const holder = node as StripeObject;
  const [field, ...rest] = segments;
  if (field === undefined) return;
  const include = typeof holder.object === 'string' && !isForbiddenKey(field) ? INCLUDABLE[holder.object]?.[field] : undefined;
  if (include && !Object.hasOwn(holder, field) && typeof holder.id === 'string') holder[field] = include(ctx, holder);
  if (isForbiddenKey(field) || !Object.hasOwn(holder, field)) {
    const hint = 'data' in holder && holder.object === 'list' ? ` You may want to try expanding 'data.${fullPath}' instead.` : '';
    throw invalidRequest(`This property cannot be expanded (${fullPath}).${hint}`, 'expand');
  }
  let value = holder[field];
  if (typeof value === 'string') {
    const loaded = loadById(ctx, value, render);
    if (!loaded) {
      throw invalidRequest(`This property cannot be expanded (${fullPath}).`, 'expand');
    }
    holder[field] = loaded;
    value = loaded;
  } else if (Array.isArray(value) && value.some((v) => typeof v === 'string')) {
    // An array of ids (`discounts`, `default_tax_rates`): each id becomes its object.
    value = holder[field] = value.map((v) => {
      if (typeof v !== 'string') return v;
      const loaded = loadById(ctx, v, render);
      if (!loaded) throw invalidRequest(`This property cannot be expanded (${fullPath}).`, 'expand');
      return loaded;
    });
  }
  if (rest.length > 0) expandAt(ctx, value, rest, fullPath, render);
}

/** Expand `paths` in a copy of `object` (the stored record is never changed). */
export function expandObject<T>(ctx: TwinContext, object: T, paths: string[], render: Render = (o) => o): T {
  if (paths.length === 0) return object;
  const copy = structuredClone(object);
  for (const path of paths) {
    const segments = path.split('.');
    if (segments.length > MAX_DEPTH) {
      throw invalidRequest(`You cannot expand more than ${MAX_DEPTH} levels of a property. Property: ${path}`, 'expand');
    }
    if (path === 'total_count') continue; // search envelopes answer it themselves
    expandAt(ctx, copy, segments, path, render);
  }
  return copy;
}
