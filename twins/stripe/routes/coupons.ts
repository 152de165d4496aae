// /v1/coupons and /v1/promotion_codes, and the `discounts[]` parameter other resources take.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import {
  bool,
  currency,
  decimal,
  emptyableStr,
  int,
  obj,
  objArray,
  oneOf,
  readMetadata,
  readParams,
  requiredStr,
  str,
  strArray,
  type Params,
} from '../wire/params.js';
import {
  COUPON_DURATIONS,
  createCoupon,
  createPromotionCode,
  deleteCoupon,
  getCoupon,
  getPromotionCode,
  listCoupons,
  listPromotionCodes,
  updateCoupon,
  updatePromotionCode,
  type DiscountRef,
} from '../model/discounts.js';

/**
 * `discounts[i][coupon|promotion_code|discount]`, plus the older top-level `coupon` and
 * `promotion_code` where a resource still takes them. An empty `discounts=` is `null` (none).
 */
export function readDiscounts(p: Params, legacy = false): DiscountRef[] | null | undefined {
  if (p.discounts === '') return null;
  const list = objArray(p, 'discounts')?.map((d, i) => ({
    coupon: str(d, 'coupon', `discounts[${i}]`),
    promotionCode: str(d, 'promotion_code', `discounts[${i}]`),
    discount: str(d, 'discount', `discounts[${i}]`),
  }));
  if (!legacy) return list;
  const coupon = str(p, 'coupon');
  const promotionCode = str(p, 'promotion_code');
  if (coupon === undefined && promotionCode === undefined) return list;
  return [...(list ?? []), { coupon, promotionCode }];
}

export const couponRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/coupons',
    handler: (req, ctx) => {
      const p = readParams(req);
      const percent = decimal(p, 'percent_off');
      const percentOff = percent === undefined ? undefined : Number(percent);
      return ok(
        createCoupon(ctx, {
          id: str(p, 'id'),
          percentOff,
          amountOff: int(p, 'amount_off'),
          currency: currency(p),
          duration: oneOf(p, 'duration', COUPON_DURATIONS),
          durationInMonths: int(p, 'duration_in_months'),
          maxRedemptions: int(p, 'max_redemptions'),
          redeemBy: int(p, 'redeem_by'),
          name: str(p, 'name'),
          metadata: readMetadata(p),
          appliesToProducts: strArray(obj(p, 'applies_to') ?? {}, 'products', 'applies_to'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/coupons',
    handler: (req, ctx) => ok(listEnvelope(listCoupons(ctx, readListWindow(readParams(req))), '/v1/coupons')),
  },
  { method: 'GET', path: '/v1/coupons/{coupon}', handler: (req, ctx) => (readParams(req), ok(getCoupon(ctx, req.params.coupon!, 'id'))) },
  {
    method: 'POST',
    path: '/v1/coupons/{coupon}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateCoupon(ctx, req.params.coupon!, { name: emptyableStr(p, 'name'), metadata: readMetadata(p) }));
    },
  },
  { method: 'DELETE', path: '/v1/coupons/{coupon}', handler: (req, ctx) => (readParams(req), ok(deleteCoupon(ctx, req.params.coupon!))) },
  {
    method: 'POST',
    path: '/v1/promotion_codes',
    handler: (req, ctx) => {
      const p = readParams(req);
      const promotion = obj(p, 'promotion');
      // `promotion[coupon]` (current API) or the older top-level `coupon`.
      const coupon = promotion ? requiredStr(promotion, 'coupon', 'promotion') : requiredStr(p, 'coupon');
      const r = obj(p, 'restrictions');
      return ok(
        createPromotionCode(ctx, {
          coupon,
          code: str(p, 'code'),
          active: bool(p, 'active'),
          customer: str(p, 'customer'),
          expiresAt: int(p, 'expires_at'),
          maxRedemptions: int(p, 'max_redemptions'),
          metadata: readMetadata(p),
          restrictions: r && {
            firstTimeTransaction: bool(r, 'first_time_transaction', 'restrictions'),
            minimumAmount: int(r, 'minimum_amount', 'restrictions'),
            minimumAmountCurrency: currency(r, 'minimum_amount_currency', 'restrictions'),
          },
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/promotion_codes',
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = { active: bool(p, 'active'), code: str(p, 'code'), coupon: str(p, 'coupon'), customer: str(p, 'customer') };
      return ok(listEnvelope(listPromotionCodes(ctx, filter, readListWindow(p)), '/v1/promotion_codes'));
    },
  },
  { method: 'GET', path: '/v1/promotion_codes/{id}', handler: (req, ctx) => (readParams(req), ok(getPromotionCode(ctx, req.params.id!, 'id'))) },
  {
    method: 'POST',
    path: '/v1/promotion_codes/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updatePromotionCode(ctx, req.params.id!, { active: bool(p, 'active'), metadata: readMetadata(p) }));
    },
  },
];
