// Radar reviews (`prv_`): a payment Radar scores at elevated risk (Stripe's test card
// 4000 0000 0000 9235) succeeds and is placed in the manual review queue by Radar's default rule
// "Review if :risk_level: = 'elevated'" — a Review opened on its charge and payment intent
// (`review.opened`). Approving closes it (`review.closed`); so does refunding the charge in full.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { clone, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';

export type ReviewCloseReason = 'approved' | 'refunded' | 'refunded_as_fraud' | 'disputed' | 'redacted' | 'canceled';

export interface Review extends StripeObject {
  object: 'review';
  charge: string;
  payment_intent: string | null;
  open: boolean;
  opened_reason: 'rule' | 'manual';
  reason: string;
  closed_reason: ReviewCloseReason | null;
  created: number;
}

/** Open the review Radar's rule puts an elevated-risk charge into; answers its id. */
export function openReview(ctx: TwinContext, charge: StripeObject): string {
  const review: Review = {
    id: newId(ctx, 'review'),
    object: 'review',
    billing_zip: charge.billing_details?.address?.postal_code ?? null,
    charge: charge.id,
    closed_reason: null,
    created: ctx.clock.nowSeconds(),
    ip_address: null,
    ip_address_location: null,
    livemode: false,
    open: true,
    opened_reason: 'rule',
    payment_intent: charge.payment_intent ?? null,
    reason: 'rule',
    session: null,
  };
  save(ctx, 'review', review);
  emitEvent(ctx, 'review.opened', review);
  return review.id;
}

export function getReview(ctx: TwinContext, id: string): Review {
  const review = find<Review>(ctx, 'review', id);
  if (!review) throw resourceMissing('review', id, 'review');
  return review;
}

/** The open reviews, newest first (`GET /v1/reviews` lists only open ones, as Stripe does). */
export function listOpenReviews(ctx: TwinContext, window: ListWindow): ListPage<Review> {
  return readPage<Review>(ctx, 'review', { open: true }, window);
}

function close(ctx: TwinContext, before: Review, reason: ReviewCloseReason): Review {
  const review = clone(before);
  review.open = false;
  review.closed_reason = reason;
  review.reason = reason;
  save(ctx, 'review', review);
  emitEvent(ctx, 'review.closed', review, previousAttributes(before, review));
  return review;
}

export function approveReview(ctx: TwinContext, id: string): Review {
  const review = getReview(ctx, id);
  if (!review.open) throw invalidRequest(`This review is already closed with reason '${review.closed_reason}'.`, 'review');
  return close(ctx, review, 'approved');
}

/** A full refund of a charge under review closes the review (`refunded`). */
export function closeReviewOnRefund(ctx: TwinContext, charge: StripeObject): void {
  if (typeof charge.review !== 'string') return;
  const review = find<Review>(ctx, 'review', charge.review);
  if (review?.open) close(ctx, review, 'refunded');
}
