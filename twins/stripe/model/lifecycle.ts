// What happens to billing objects when the environment clock moves: every due step runs in time
// order (ties in a fixed order, then by id), with the clock set to the step's own instant first so
// the records and events it writes carry that time. Steps: drafts finalizing an hour after their
// creation (then charged), payment retries, `trial_will_end` three days ahead, scheduled
// cancellations, period renewals and trial ends, incomplete subscriptions expiring after 23 hours,
// checkout sessions expiring.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { StripeObject } from './objects.js';
import { emitEvent } from './events.js';
import { finalizeInvoice, retryInvoice, voidInvoice, type Invoice } from './invoices.js';
import {
  INCOMPLETE_EXPIRY_SECONDS,
  LIVE_STATUSES,
  cancelSubscriptionNow,
  loadSubscription,
  setStatus,
  startNewPeriod,
  subscriptionPaymentMethod,
} from './subscriptions.js';
import { expireSession } from './checkout.js';

const TRIAL_NOTICE_SECONDS = 3 * 86_400;

interface DueStep {
  at: number;
  /** Order among steps due at the same second. */
  rank: number;
  id: string;
  run(): void;
}

function trialNoticeKey(sub: StripeObject): string {
  return `stripe:trial_will_end:${sub.id}:${sub.trial_end}`;
}

/** Every step due at or before `until` (unix seconds), unordered. */
function dueSteps(ctx: TwinContext, until: number): DueStep[] {
  const steps: DueStep[] = [];
  for (const inv of ctx.store.list<Invoice>('invoice')) {
    if (inv.status === 'draft' && inv.auto_advance && inv.automatically_finalizes_at != null && inv.automatically_finalizes_at <= until) {
      steps.push({ at: inv.automatically_finalizes_at, rank: 0, id: inv.id, run: () => void finalizeInvoice(ctx, inv.id, { collect: true }) });
    } else if (inv.status === 'open' && inv.next_payment_attempt != null && inv.next_payment_attempt <= until && inv.collection_method === 'charge_automatically') {
      steps.push({ at: inv.next_payment_attempt, rank: 1, id: inv.id, run: () => retryInvoice(ctx, inv.id) });
    }
  }
  for (const sub of ctx.store.list<StripeObject>('subscription')) {
    if (sub.status === 'trialing' && sub.trial_end != null && ctx.store.getMeta(trialNoticeKey(sub)) === undefined) {
      const at = Math.max(sub.trial_end - TRIAL_NOTICE_SECONDS, sub.trial_start ?? sub.created);
      if (at <= until && at < sub.trial_end) {
        steps.push({
          at,
          rank: 2,
          id: sub.id,
          run: () => {
            ctx.store.setMeta(trialNoticeKey(sub), '1');
            emitEvent(ctx, 'customer.subscription.trial_will_end', loadSubscription(ctx, sub.id));
          },
        });
      }
    }
    if (LIVE_STATUSES.includes(sub.status)) {
      if (sub.cancel_at != null && sub.cancel_at <= until && sub.cancel_at <= sub.current_period_end) {
        steps.push({ at: sub.cancel_at, rank: 3, id: sub.id, run: () => void cancelSubscriptionNow(ctx, sub.id, { reason: 'cancellation_requested', invoiceNow: true }) });
      } else if (sub.current_period_end <= until) {
        steps.push({ at: sub.current_period_end, rank: 4, id: sub.id, run: () => renew(ctx, sub.id, sub.current_period_end) });
      }
    } else if (sub.status === 'incomplete' && sub.created + INCOMPLETE_EXPIRY_SECONDS <= until) {
      steps.push({ at: sub.created + INCOMPLETE_EXPIRY_SECONDS, rank: 5, id: sub.id, run: () => expireIncomplete(ctx, sub.id) });
    }
  }
  for (const s of ctx.store.list<StripeObject>('checkout_session')) {
    if (s.status === 'open' && s.expires_at <= until) {
      steps.push({ at: s.expires_at, rank: 6, id: s.id, run: () => void expireSession(ctx, s.id) });
    }
  }
  return steps;
}

/** Period end: a trial ends (or cancels with no payment method, if so configured), or a cycle renews. */
function renew(ctx: TwinContext, id: string, at: number): void {
  const sub = loadSubscription(ctx, id);
  if (
    sub.status === 'trialing' &&
    sub.trial_settings?.end_behavior?.missing_payment_method === 'cancel' &&
    !subscriptionPaymentMethod(ctx, sub)
  ) {
    cancelSubscriptionNow(ctx, id, { reason: 'cancellation_requested' });
    return;
  }
  startNewPeriod(ctx, id, at);
}

/** The first invoice stayed unpaid for 23 hours: the subscription expires and the invoice is voided. */
function expireIncomplete(ctx: TwinContext, id: string): void {
  const sub = loadSubscription(ctx, id);
  setStatus(ctx, id, 'incomplete_expired');
  if (sub.latest_invoice) {
    const inv = ctx.store.get<Invoice>('invoice', sub.latest_invoice);
    if (inv && (inv.status === 'open' || inv.status === 'uncollectible')) voidInvoice(ctx, inv.id);
  }
}

/** Safety stop for a runaway loop (a step that does not move its own due time). */
const MAX_STEPS = 100_000;

export function advanceStripe(ctx: TwinContext, to: Date): void {
  const until = Math.floor(to.getTime() / 1000);
  // A step that fails (say, a record edited into an impossible state) is skipped, not retried forever.
  const failed = new Set<string>();
  for (let i = 0; i < MAX_STEPS; i++) {
    const steps = dueSteps(ctx, until).filter((s) => !failed.has(`${s.rank}:${s.id}:${s.at}`));
    if (steps.length === 0) return;
    steps.sort((a, b) => a.at - b.at || a.rank - b.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const next = steps[0]!;
    ctx.clock.advanceTo(next.at * 1000);
    try {
      ctx.store.transaction(() => next.run());
    } catch (e) {
      failed.add(`${next.rank}:${next.id}:${next.at}`);
      ctx.store.setMeta(`stripe:lifecycle_error:${next.id}:${next.at}`, (e as Error).message);
    }
  }
  throw new Error('Stripe lifecycle did not settle: too many steps in one advance.');
}
