// Coupons, promotion codes and the discounts they turn into when redeemed on a customer, a
// subscription or an invoice; and what discounts do to an invoice's lines and totals. A
// `repeating` discount ends `duration_in_months` after it starts, a `once` discount is used up by
// the first invoice it applies to, a `forever` one stays until removed.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { addCycles } from './billing-cycle.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, deletedObject, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export const COUPON_DURATIONS = ['forever', 'once', 'repeating'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

// ---------------------------------------------------------------------------------------------
// Coupons

export interface CouponCreate {
  id?: string;
  percentOff?: number;
  amountOff?: number;
  currency?: string;
  duration?: CouponDuration;
  durationInMonths?: number;
  maxRedemptions?: number;
  redeemBy?: number;
  name?: string;
  metadata?: MetadataPatch;
  appliesToProducts?: string[];
}

const COUPON_ID = /^[A-Za-z0-9_-]{1,200}$/;

export function createCoupon(ctx: TwinContext, input: CouponCreate): StripeObject {
  const { percentOff, amountOff } = input;
  if ((percentOff === undefined) === (amountOff === undefined)) {
    throw invalidRequest('You must pass exactly one of `amount_off` or `percent_off`.', percentOff === undefined ? 'amount_off' : 'percent_off');
  }
  if (percentOff !== undefined && !(percentOff > 0 && percentOff <= 100)) {
    throw invalidRequest('Invalid percent_off: must be greater than 0 and less than or equal to 100.', 'percent_off');
  }
  if (amountOff !== undefined && amountOff < 1) throw invalidRequest('Invalid amount_off: must be a positive integer.', 'amount_off');
  if (amountOff !== undefined && !input.currency) throw invalidRequest('You must specify a `currency` when creating an `amount_off` coupon.', 'currency');
  const duration = input.duration ?? 'once';
  if (duration === 'repeating' && input.durationInMonths === undefined)
    throw invalidRequest('Missing required param: duration_in_months.', 'duration_in_months', 'parameter_missing');
  if (duration !== 'repeating' && input.durationInMonths !== undefined) {
    throw invalidRequest('You can only pass `duration_in_months` when `duration` is `repeating`.', 'duration_in_months');
  }
  if (input.durationInMonths !== undefined && input.durationInMonths < 1)
    throw invalidRequest('Invalid duration_in_months: must be a positive integer.', 'duration_in_months');
  if (input.maxRedemptions !== undefined && input.maxRedemptions < 1)
    throw invalidRequest('Invalid max_redemptions: must be a positive integer.', 'max_redemptions');
  if (input.redeemBy !== undefined && input.redeemBy <= ctx.clock.nowSeconds()) throw invalidRequest('Invalid redeem_by: must be in the future.', 'redeem_by');
  const id = input.id ?? ctx.ids.token(8);
  if (!COUPON_ID.test(id)) throw invalidRequest('Invalid coupon id: use letters, digits, `_` and `-` only.', 'id');
  if (find(ctx, 'coupon', id)) throw invalidRequest('Coupon already exists.', 'id', 'resource_already_exists');
  for (const p of input.appliesToProducts ?? []) if (!find(ctx, 'product', p)) throw resourceMissing('product', p, 'applies_to[products]');
  const coupon: StripeObject = {
    id,
    object: 'coupon',
    amount_off: amountOff ?? null,
    ...(input.appliesToProducts ? { applies_to: { products: input.appliesToProducts } } : {}),
    created: ctx.clock.nowSeconds(),
    currency: amountOff !== undefined ? input.currency!.toLowerCase() : null,
    duration,
    duration_in_months: input.durationInMonths ?? null,
    livemode: false,
    max_redemptions: input.maxRedemptions ?? null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    name: input.name ?? null,
    percent_off: percentOff ?? null,
    redeem_by: input.redeemBy ?? null,
    times_redeemed: 0,
    valid: true,
  };
  save(ctx, 'coupon', coupon);
  emitEvent(ctx, 'coupon.created', coupon);
  return coupon;
}

/** A coupon as the API answers it (`valid` follows `redeem_by` and `max_redemptions`). */
export function getCoupon(ctx: TwinContext, id: string, param = 'coupon'): StripeObject {
  const c = find(ctx, 'coupon', id);
  if (!c || c.deleted) throw resourceMissing('coupon', id, param);
  return presentCoupon(ctx, c);
}

function presentCoupon(ctx: TwinContext, c: StripeObject): StripeObject {
  const valid = (c.redeem_by === null || c.redeem_by > ctx.clock.nowSeconds()) && (c.max_redemptions === null || c.times_redeemed < c.max_redemptions);
  return valid === c.valid ? c : { ...c, valid };
}

export function updateCoupon(ctx: TwinContext, id: string, input: { name?: string | null; metadata?: MetadataPatch }): StripeObject {
  const before = getCoupon(ctx, id, 'id');
  const c = clone(before);
  if (input.name !== undefined) c.name = input.name;
  if (input.metadata !== undefined) c.metadata = applyMetadata(c.metadata ?? {}, input.metadata);
  save(ctx, 'coupon', c);
  const prev = previousAttributes(before, c);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'coupon.updated', c, prev);
  return c;
}

/** Deleting a coupon stops new redemptions; discounts already made from it keep applying. */
export function deleteCoupon(ctx: TwinContext, id: string): StripeObject {
  const c = getCoupon(ctx, id, 'id');
  save(ctx, 'coupon', { ...c, deleted: true });
  emitEvent(ctx, 'coupon.deleted', c);
  return deletedObject(c);
}

export function listCoupons(ctx: TwinContext, window: ListWindow): ListPage<StripeObject> {
  const page = readPage<StripeObject>(ctx, 'coupon', {}, window, { noneOf: { deleted: [1] } });
  return { ...page, data: page.data.map((c) => presentCoupon(ctx, c)) };
}

// ---------------------------------------------------------------------------------------------
// Promotion codes

export interface PromotionCodeCreate {
  coupon: string;
  code?: string;
  active?: boolean;
  customer?: string;
  expiresAt?: number;
  maxRedemptions?: number;
  metadata?: MetadataPatch;
  restrictions?: { firstTimeTransaction?: boolean; minimumAmount?: number; minimumAmountCurrency?: string };
}

const CODE = /^[A-Za-z0-9]{1,500}$/;

function activeCodeTaken(ctx: TwinContext, code: string, except?: string): boolean {
  const lower = code.toLowerCase();
  return ctx.store.list<StripeObject>('promotion_code').some((p) => p.id !== except && p.active && String(p.code).toLowerCase() === lower);
}

export function createPromotionCode(ctx: TwinContext, input: PromotionCodeCreate): StripeObject {
  const coupon = getCoupon(ctx, input.coupon, 'promotion[coupon]');
  const code =
    input.code ??
    ctx.ids
      .token(8)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, 'X');
  if (!CODE.test(code)) throw invalidRequest('Invalid code: use only letters and digits.', 'code');
  const active = input.active ?? true;
  if (active && activeCodeTaken(ctx, code)) throw invalidRequest(`An active promotion code with \`code: ${code}\` already exists.`, 'code');
  if (input.customer && !find(ctx, 'customer', input.customer)) throw resourceMissing('customer', input.customer, 'customer');
  const r = input.restrictions ?? {};
  if (r.minimumAmount !== undefined && !r.minimumAmountCurrency) {
    throw invalidRequest('You must pass `minimum_amount_currency` along with `minimum_amount`.', 'restrictions[minimum_amount_currency]');
  }
  const promo: StripeObject = {
    id: newId(ctx, 'promotion_code'),
    object: 'promotion_code',
    active,
    code,
    created: ctx.clock.nowSeconds(),
    customer: input.customer ?? null,
    customer_account: null,
    expires_at: input.expiresAt ?? null,
    livemode: false,
    max_redemptions: input.maxRedemptions ?? null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    promotion: { coupon: coupon.id, type: 'coupon' },
    // Pre-2025 API versions read the coupon from the promotion code itself.
    coupon,
    restrictions: {
      first_time_transaction: r.firstTimeTransaction ?? false,
      minimum_amount: r.minimumAmount ?? null,
      minimum_amount_currency: r.minimumAmountCurrency?.toLowerCase() ?? null,
    },
    times_redeemed: 0,
  };
  save(ctx, 'promotion_code', promo);
  emitEvent(ctx, 'promotion_code.created', promo);
  return promo;
}

export function getPromotionCode(ctx: TwinContext, id: string, param = 'promotion_code'): StripeObject {
  const p = find(ctx, 'promotion_code', id);
  if (!p) throw resourceMissing('promotion code', id, param);
  return p;
}

export function updatePromotionCode(ctx: TwinContext, id: string, input: { active?: boolean; metadata?: MetadataPatch }): StripeObject {
  const before = getPromotionCode(ctx, id, 'id');
  const p = clone(before);
  if (input.active === true && !before.active && activeCodeTaken(ctx, before.code, id)) {
    throw invalidRequest(`An active promotion code with \`code: ${before.code}\` already exists.`, 'active');
  }
  if (input.active !== undefined) p.active = input.active;
  if (input.metadata !== undefined) p.metadata = applyMetadata(p.metadata ?? {}, input.metadata);
  save(ctx, 'promotion_code', p);
  const prev = previousAttributes(before, p);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'promotion_code.updated', p, prev);
  return p;
}

/** One page of promotion codes, newest first; `code` matches case-insensitively and `coupon` looks inside `promotion`. */
export function listPromotionCodes(
  ctx: TwinContext,
  f: { active?: boolean; code?: string; coupon?: string; customer?: string },
  window: ListWindow,
): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.active !== undefined) equals.active = f.active;
  if (f.customer !== undefined) equals.customer = f.customer;
  const code = f.code?.toLowerCase();
  const keep =
    code === undefined && f.coupon === undefined
      ? undefined
      : (p: StripeObject) => (code === undefined || String(p.code).toLowerCase() === code) && (f.coupon === undefined || p.promotion?.coupon === f.coupon);
  return readPage<StripeObject>(ctx, 'promotion_code', equals, window, { keep });
}

// ---------------------------------------------------------------------------------------------
// Redeeming: a coupon or promotion code becomes a discount on a customer, subscription, invoice
// or checkout session.

/** One entry of a `discounts[]` parameter. */
export interface DiscountRef {
  coupon?: string;
  promotionCode?: string;
  discount?: string;
}

export interface DiscountTarget {
  customer: string | null;
  subscription?: string | null;
  invoice?: string | null;
  checkoutSession?: string | null;
}

function hasPaidBefore(ctx: TwinContext, customer: string): boolean {
  return ctx.store.list<StripeObject>('charge').some((c) => c.customer === customer && c.paid && c.status === 'succeeded');
}

function redeemable(ctx: TwinContext, coupon: StripeObject, param: string): void {
  const now = ctx.clock.nowSeconds();
  if (coupon.redeem_by !== null && coupon.redeem_by <= now) throw invalidRequest(`Coupon expired: ${coupon.id}`, param, 'coupon_expired');
  if (coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions) {
    throw invalidRequest(`Coupon expired: ${coupon.id}`, param, 'coupon_expired');
  }
}

/** A promotion code's own rules for this customer (and, once known, amount). */
export function checkPromotionCode(
  ctx: TwinContext,
  promo: StripeObject,
  target: DiscountTarget,
  param: string,
  amount?: { value: number; currency: string },
): void {
  const now = ctx.clock.nowSeconds();
  const code = promo.code as string;
  if (!promo.active) throw invalidRequest(`This promotion code is not active: ${code}.`, param);
  if (promo.expires_at !== null && promo.expires_at <= now) throw invalidRequest(`This promotion code has expired: ${code}.`, param);
  if (promo.max_redemptions !== null && promo.times_redeemed >= promo.max_redemptions) {
    throw invalidRequest(`This promotion code has reached its maximum number of redemptions: ${code}.`, param);
  }
  if (promo.customer && promo.customer !== target.customer) throw invalidRequest(`This promotion code cannot be redeemed by this customer: ${code}.`, param);
  const r = promo.restrictions;
  if (r.first_time_transaction && target.customer && hasPaidBefore(ctx, target.customer)) {
    throw invalidRequest(`This promotion code is only valid for first-time customers: ${code}.`, param);
  }
  if (amount && r.minimum_amount !== null && amount.currency === r.minimum_amount_currency && amount.value < r.minimum_amount) {
    throw invalidRequest(`This promotion code requires a minimum amount of ${r.minimum_amount} ${r.minimum_amount_currency}: ${code}.`, param);
  }
}

function countRedemption(ctx: TwinContext, resource: 'coupon' | 'promotion_code', id: string): void {
  const o = find(ctx, resource, id);
  if (!o) return;
  o.times_redeemed = (o.times_redeemed ?? 0) + 1;
  save(ctx, resource, o);
}

/** Turn `ref` into a discount record for `target` (or return the existing one it names). */
export function redeem(ctx: TwinContext, ref: DiscountRef, target: DiscountTarget, param: string): StripeObject {
  if (ref.discount) {
    const d = find(ctx, 'discount', ref.discount);
    if (!d || d.deleted) throw resourceMissing('discount', ref.discount, `${param}[discount]`);
    return d;
  }
  let promo: StripeObject | null = null;
  let couponId = ref.coupon;
  if (ref.promotionCode) {
    promo = getPromotionCode(ctx, ref.promotionCode, `${param}[promotion_code]`);
    checkPromotionCode(ctx, promo, target, `${param}[promotion_code]`);
    couponId = promo.promotion.coupon;
  }
  if (!couponId) throw invalidRequest('Each discount must name a `coupon`, a `promotion_code` or a `discount`.', param);
  const coupon = getCoupon(ctx, couponId, promo ? `${param}[promotion_code]` : `${param}[coupon]`);
  redeemable(ctx, coupon, `${param}[coupon]`);
  const start = ctx.clock.nowSeconds();
  const discount: StripeObject = {
    id: newId(ctx, 'discount'),
    object: 'discount',
    checkout_session: target.checkoutSession ?? null,
    // Pre-2025 API versions read the coupon from the discount itself.
    coupon,
    customer: target.customer,
    customer_account: null,
    end: coupon.duration === 'repeating' ? addCycles(start, { interval: 'month', interval_count: 1 }, coupon.duration_in_months) : null,
    invoice: target.invoice ?? null,
    invoice_item: null,
    promotion_code: promo?.id ?? null,
    source: { coupon: coupon.id, type: 'coupon' },
    start,
    subscription: target.subscription ?? null,
    subscription_item: null,
  };
  save(ctx, 'discount', discount);
  emitEvent(ctx, 'customer.discount.created', discount);
  countRedemption(ctx, 'coupon', coupon.id);
  if (promo) countRedemption(ctx, 'promotion_code', promo.id);
  return discount;
}

/** Redeem each entry of a `discounts[]` parameter (duplicates of one coupon are refused). */
export function redeemAll(ctx: TwinContext, refs: DiscountRef[], target: DiscountTarget): string[] {
  const out: StripeObject[] = [];
  refs.forEach((ref, i) => {
    const d = redeem(ctx, ref, target, `discounts[${i}]`);
    if (out.some((o) => o.source.coupon === d.source.coupon)) {
      throw invalidRequest('You cannot apply the same coupon more than once.', `discounts[${i}]`);
    }
    out.push(d);
  });
  return out.map((d) => d.id);
}

export function loadDiscount(ctx: TwinContext, id: string): StripeObject | undefined {
  const d = find(ctx, 'discount', id);
  return d && !d.deleted ? d : undefined;
}

/** Mark a discount ended (`customer.discount.deleted`) and answer Stripe's deleted discount. */
export function endDiscount(ctx: TwinContext, id: string): StripeObject {
  const d = find(ctx, 'discount', id)!;
  const ended: StripeObject = { ...d, deleted: true };
  save(ctx, 'discount', ended);
  const { end: _end, ...rest } = ended;
  emitEvent(ctx, 'customer.discount.deleted', d);
  return rest as StripeObject;
}

/** Whether a discount still applies at `now` (a repeating one ends at its `end`). */
export function discountLive(d: StripeObject | undefined, now: number): d is StripeObject {
  return Boolean(d && !d.deleted && (d.end === null || d.end > now));
}

// ---------------------------------------------------------------------------------------------
// Invoices: which discounts apply and what they take off

/**
 * The discounts a new invoice gets at `now`: the subscription's (or, with none, the customer's).
 * Ended ones are removed from their owner first (`customer.discount.deleted`), and a `once`
 * discount is used up by this invoice.
 */
export function takeInvoiceDiscounts(ctx: TwinContext, owner: { subscription?: StripeObject | null; customer: StripeObject }): string[] {
  const now = ctx.clock.nowSeconds();
  const sub = owner.subscription ? find(ctx, 'subscription', owner.subscription.id) : undefined;
  const fromSub = (sub?.discounts as string[] | undefined) ?? [];
  const fromCustomer = owner.customer.discount?.id ? [owner.customer.discount.id as string] : [];
  const useSub = fromSub.length > 0;
  const ids = useSub ? fromSub : fromCustomer;
  const live: string[] = [];
  const used: string[] = [];
  for (const id of ids) {
    const d = find(ctx, 'discount', id);
    if (discountLive(d, now)) {
      live.push(id);
      if (d.coupon?.duration === 'once') used.push(id);
    } else if (d && !(d as StripeObject).deleted) {
      used.push(id);
    }
  }
  const gone = new Set(used);
  for (const id of used) endDiscount(ctx, id);
  if (gone.size > 0) {
    if (useSub && sub) {
      const before = clone(sub);
      sub.discounts = fromSub.filter((id) => !gone.has(id));
      save(ctx, 'subscription', sub);
      emitEvent(ctx, 'customer.subscription.updated', sub, previousAttributes(before, sub));
    } else if (!useSub) {
      const c = find(ctx, 'customer', owner.customer.id);
      if (c) {
        const before = clone(c);
        c.discount = null;
        save(ctx, 'customer', c);
        emitEvent(ctx, 'customer.updated', c, previousAttributes(before, c));
      }
    }
  }
  return live;
}

interface DiscountableLine {
  amount: number;
  discountable?: boolean;
  pricing?: { price_details?: { product?: string | null } | null } | null;
  discount_amounts: { amount: number; discount: string }[];
}

/** A line as a coupon sees it: what is left of its amount, its product, whether it takes discounts. */
export interface CouponLine {
  left: number;
  product: string | null;
  discountable: boolean;
}

/**
 * What `coupon` takes off each line (same order): a percentage off every eligible line, or a
 * fixed amount (in the coupon's currency only) shared in proportion to them.
 */
export function couponShares(coupon: StripeObject, lines: CouponLine[], currency: string): number[] {
  const products = coupon.applies_to?.products as string[] | undefined;
  const eligible = (l: CouponLine): boolean => l.discountable && l.left > 0 && (!products || products.includes(l.product ?? ''));
  if (coupon.percent_off !== null) return lines.map((l) => (eligible(l) ? Math.round((l.left * coupon.percent_off) / 100) : 0));
  const shares = lines.map(() => 0);
  if (coupon.amount_off === null || coupon.currency !== currency) return shares;
  const picked = lines.map((l, i) => [l, i] as const).filter(([l]) => eligible(l));
  const base = picked.reduce((s, [l]) => s + l.left, 0);
  let remaining = Math.min(coupon.amount_off, base);
  picked.forEach(([l, i], k) => {
    const share = k === picked.length - 1 ? remaining : Math.min(remaining, Math.round((coupon.amount_off * l.left) / base));
    shares[i] = share;
    remaining -= share;
  });
  return shares;
}

/**
 * Spread each discount over the invoice's lines (in order, each on what the earlier ones left).
 * Returns the invoice-level `total_discount_amounts`.
 */
export function discountLines(ctx: TwinContext, lines: DiscountableLine[], discountIds: string[], currency: string): { amount: number; discount: string }[] {
  for (const l of lines) l.discount_amounts = [];
  const totals: { amount: number; discount: string }[] = [];
  for (const id of discountIds) {
    const d = find(ctx, 'discount', id);
    const coupon = d?.coupon as StripeObject | undefined;
    if (!coupon) continue;
    const shares = couponShares(
      coupon,
      lines.map((l) => ({
        left: l.amount - l.discount_amounts.reduce((s, x) => s + x.amount, 0),
        product: l.pricing?.price_details?.product ?? null,
        discountable: l.discountable !== false,
      })),
      currency,
    );
    let total = 0;
    lines.forEach((l, i) => {
      l.discount_amounts.push({ amount: shares[i]!, discount: id });
      total += shares[i]!;
    });
    totals.push({ amount: total, discount: id });
  }
  return totals;
}

/**
 * Replace an owner's discounts with `refs` (`null`: none): discounts it keeps by id stay, the
 * others end, new coupons and promotion codes are redeemed. Returns the new list of ids.
 */
export function replaceDiscounts(ctx: TwinContext, current: string[], refs: DiscountRef[] | null, target: DiscountTarget): string[] {
  const next = refs === null ? [] : redeemAll(ctx, refs, target);
  for (const id of current) if (!next.includes(id) && loadDiscount(ctx, id)) endDiscount(ctx, id);
  return next;
}
