// Plans: the older face of recurring prices. A plan *is* a price — one record, one id — so a plan
// is retrieved as a price (`prices.retrieve(plan.id)`), a recurring price as a plan, and
// `items[][plan]` subscribes to either. A plan may name its own id (prices may not); its `amount`,
// `interval`… are the price's `unit_amount`, `recurring[interval]`… Deleting a plan stops new use of
// it (retrieve and list answer as if it were gone); subscriptions on it go on.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { clone, deletedObject, find, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';
import { createPrice, updatePrice, type Price, type PriceCreate, type ProductData, type RecurringInput, type TierInput } from './prices.js';
import { planOf } from './subscription-items.js';

export interface PlanCreate {
  id?: string;
  currency: string;
  interval: NonNullable<RecurringInput['interval']>;
  intervalCount?: number;
  usageType?: RecurringInput['usageType'];
  meter?: string;
  trialPeriodDays?: number;
  amount?: number;
  amountDecimal?: string;
  billingScheme?: 'per_unit' | 'tiered';
  tiersMode?: 'graduated' | 'volume';
  tiers?: TierInput[];
  transformUsage?: { divideBy?: number; round?: 'up' | 'down' };
  product?: string;
  productData?: ProductData;
  active?: boolean;
  nickname?: string;
  metadata?: MetadataPatch;
}

export interface PlanUpdate {
  active?: boolean;
  nickname?: string | null;
  metadata?: MetadataPatch;
  product?: string;
  trialPeriodDays?: number;
}

export interface PlanFilter {
  active?: boolean;
  product?: string;
}

const MAX_INTERVAL_COUNT = { day: 1095, week: 156, month: 36, year: 3 } as const;

const deletedKey = (id: string) => `plan_deleted:${id}`;

function isPlan(ctx: TwinContext, price: Price | undefined): price is Price {
  return price !== undefined && price.type === 'recurring' && !ctx.store.getMeta(deletedKey(price.id));
}

export function createPlan(ctx: TwinContext, input: PlanCreate): StripeObject {
  if (input.id !== undefined && find(ctx, 'price', input.id)) throw invalidRequest('Plan already exists.', 'id', 'resource_already_exists');
  if ((input.billingScheme ?? 'per_unit') === 'per_unit' && input.amount === undefined && input.amountDecimal === undefined) throw missingParam('amount');
  const count = input.intervalCount ?? 1;
  const max = MAX_INTERVAL_COUNT[input.interval];
  if (count < 1 || count > max) throw invalidRequest(`Invalid interval_count: must be between 1 and ${max} for interval ${input.interval}.`, 'interval_count');
  if (input.product === undefined && input.productData === undefined) throw missingParam('product');
  const price: PriceCreate = {
    id: input.id,
    currency: input.currency,
    product: input.product,
    productData: input.productData,
    billingScheme: input.billingScheme,
    unitAmount: input.amount,
    unitAmountDecimal: input.amountDecimal,
    tiersMode: input.tiersMode,
    tiers: input.tiers,
    recurring: { interval: input.interval, intervalCount: count, usageType: input.usageType, meter: input.meter, trialPeriodDays: input.trialPeriodDays },
    transformQuantity: input.transformUsage,
    active: input.active,
    nickname: input.nickname,
    metadata: input.metadata,
  };
  const plan = planOf(createPrice(ctx, price));
  emitEvent(ctx, 'plan.created', plan);
  return plan;
}

export function getPlan(ctx: TwinContext, id: string): StripeObject {
  const price = find<Price>(ctx, 'price', id);
  if (!isPlan(ctx, price)) throw resourceMissing('plan', id, 'plan');
  return planOf(price);
}

export function listPlans(ctx: TwinContext, f: PlanFilter, window: ListWindow): ListPage<StripeObject> {
  const equals: Record<string, string | boolean> = { type: 'recurring' };
  if (f.active !== undefined) equals.active = f.active;
  if (f.product !== undefined) equals.product = f.product;
  const page = readPage<Price>(ctx, 'price', equals, window, { keep: (p) => isPlan(ctx, p as Price) });
  return { data: page.data.map(planOf), hasMore: page.hasMore };
}

export function updatePlan(ctx: TwinContext, id: string, input: PlanUpdate): StripeObject {
  const before = find<Price>(ctx, 'price', id);
  if (!isPlan(ctx, before)) throw resourceMissing('plan', id, 'plan');
  const updated = updatePrice(ctx, id, { active: input.active, nickname: input.nickname, metadata: input.metadata });
  const price = clone(updated);
  if (input.product !== undefined && input.product !== price.product) {
    if (!find(ctx, 'product', input.product)) throw resourceMissing('product', input.product, 'product');
    const used = ctx.store.list<StripeObject>('subscription_item').some((item) => item.price?.id === id);
    if (used) throw invalidRequest('You cannot change the product of a plan that has been used in a subscription.', 'product');
    price.product = input.product;
  }
  if (input.trialPeriodDays !== undefined) price.recurring = { ...price.recurring, trial_period_days: input.trialPeriodDays };
  if (Object.keys(previousAttributes(updated, price)).length > 0) save(ctx, 'price', price);
  const plan = planOf(price);
  const prev = previousAttributes(planOf(before), plan);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'plan.updated', plan, prev);
  return plan;
}

export function deletePlan(ctx: TwinContext, id: string): StripeObject {
  const plan = getPlan(ctx, id);
  ctx.store.setMeta(deletedKey(id), '1');
  emitEvent(ctx, 'plan.deleted', plan);
  return deletedObject(plan);
}
