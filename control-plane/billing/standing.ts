// Whether an organization's payments are in order, read from its subscription at the processor:
// `ok`; `past_due` while the processor still retries a failed renewal (a grace period: twins keep
// starting, the summary says what happened); `delinquent` once the retries are over (new twins are
// refused with 402 until a new card pays); or the subscription has ended (the organization goes
// back to the deployment's default plan).

import type { Db } from '../store/database.js';
import type { PaymentState } from '../store/billing.js';
import type { SubscriptionState } from './processor.js';

export interface Standing {
  state: PaymentState;
  notice: string | null;
  /** The subscription no longer bills (canceled, expired, or unknown to the processor). */
  ended: boolean;
}

const ENDED = new Set(['canceled', 'incomplete_expired']);

const isoOf = (seconds: number): string => new Date(seconds * 1000).toISOString();

const FIX = 'Start a checkout (POST /organizations/current/billing/checkout) and upgrade again with another card to pay it.';

export function standingOf(sub: SubscriptionState | undefined, nowIso = new Date().toISOString()): Standing {
  if (!sub || ENDED.has(sub.status)) {
    return {
      state: 'ok',
      ended: true,
      notice: `Pay as you go ended on ${nowIso}: the subscription at the payment processor ${sub ? `is ${sub.status}` : 'no longer exists'}. Start a checkout and upgrade to resume.`,
    };
  }
  const failure = sub.failure;
  const what = failure ? `Payment of invoice ${failure.invoiceId} failed (${failure.message.replace(/\.$/, '')})` : 'The last payment failed';
  if (sub.status === 'unpaid' || (sub.status === 'past_due' && failure && failure.nextAttempt === null)) {
    return { state: 'delinquent', ended: false, notice: `${what} and the processor's retries are over: new twins are refused until it is paid. ${FIX}` };
  }
  if (sub.status === 'past_due' || sub.status === 'incomplete') {
    const retry = failure?.nextAttempt ? `; the processor tries again on ${isoOf(failure.nextAttempt)}` : '';
    return {
      state: 'past_due',
      ended: false,
      notice: `${what}${retry}. Twins keep starting while the processor retries; once its retries are over new twins are refused. ${FIX}`,
    };
  }
  return { state: 'ok', ended: false, notice: null };
}

/** The 402 sentence when the organization may not start new twins for want of payment. */
export function billingRefusal(db: Db, orgId: string): string | undefined {
  const row = db.prepare(`SELECT payment_state, notice FROM billing_accounts WHERE organization_id = ?`).get(orgId) as
    | { payment_state: PaymentState; notice: string | null }
    | undefined;
  if (row?.payment_state !== 'delinquent') return undefined;
  return row.notice ?? `Payment failed and the processor's retries are over: new twins are refused until it is paid. ${FIX}`;
}
