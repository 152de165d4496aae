// What happens to billing objects when the environment clock moves: every due step runs in time
// order (ties in a fixed order, then by id), with the clock set to the step's own instant first so
// the records and events it writes carry that time. Steps: drafts finalizing an hour after their
// creation (then charged), payment retries, `trial_will_end` three days ahead, scheduled
// cancellations, subscription schedule phases, period renewals and trial ends, incomplete
// subscriptions expiring after 23 hours, checkout sessions and quotes expiring; and for the account's money
// (environment clock only): pending funds becoming available, payouts arriving, disputes decided.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { StripeObject } from './objects.js';
import { emitEvent } from './events.js';
import { voidInvoice, type Invoice } from './invoices.js';
import { finalizeAndCollect, retryInvoice } from './invoice-payments.js';
import { subscriptionPaymentMethod } from './subscription-items.js';
import {
  INCOMPLETE_EXPIRY_SECONDS,
  LIVE_STATUSES,
  cancelSubscriptionNow,
  endPauseCollection,
  loadSubscription,
  pauseAtTrialEnd,
  setStatus,
  startNewPeriod,
} from './subscriptions.js';
import { expireSession } from './checkout.js';
import { QUOTE_EXPIRING, cancelQuote } from './quotes.js';
import { scheduleSteps } from './subscription-schedules.js';
import { settleDue } from './balance.js';
import { markPayoutPaid, nextAutomaticPayoutAt, runAutomaticPayouts } from './payouts.js';
import { dueDecision, settleDispute, type Dispute } from './disputes.js';
import { accountOf, contextFor, scopedResource } from '../wire/connect-scope.js';

const TRIAL_NOTICE_SECONDS = 3 * 86_400;

interface DueStep {
  at: number;
  /** Order among steps due at the same second. */
  rank: number;
  id: string;
  /** Re-checked just before running: an earlier step at the same instant may have changed things. */
  valid(): boolean;
  run(): void;
}

const fresh = (ctx: TwinContext, resource: string, id: string): StripeObject | undefined => ctx.store.get<StripeObject>(resource, id);

function trialNoticeKey(sub: StripeObject): string {
  return `stripe:trial_will_end:${sub.id}:${sub.trial_end}`;
}

/** Records of a kind whose `status` is one of `statuses`, oldest first (the store's status index). */
function withStatus<T>(ctx: TwinContext, resource: string, statuses: readonly string[]): T[] {
  return ctx.store.withStatus<T>(scopedResource(accountOf(ctx), resource), statuses);
}

/**
 * Every step due at or before `until` (unix seconds), unordered, for the objects on `testClock`
 * (null: the objects on no test clock, which the environment clock moves).
 */
function dueSteps(ctx: TwinContext, until: number, testClock: string | null): DueStep[] {
  const steps: DueStep[] = [];
  const onScope = (o: StripeObject): boolean => ((o.test_clock as string | null | undefined) ?? null) === testClock;
  for (const inv of withStatus<Invoice>(ctx, 'invoice', ['draft', 'open'])) {
    if (!onScope(inv)) continue;
    if (inv.status === 'draft' && inv.auto_advance && inv.automatically_finalizes_at != null && inv.automatically_finalizes_at <= until) {
      const at = inv.automatically_finalizes_at;
      steps.push({
        at,
        rank: 0,
        id: inv.id,
        valid: () => {
          const cur = fresh(ctx, 'invoice', inv.id);
          return cur?.status === 'draft' && Boolean(cur.auto_advance) && cur.automatically_finalizes_at === at;
        },
        run: () => void finalizeAndCollect(ctx, inv.id),
      });
    } else if (
      inv.status === 'open' &&
      inv.next_payment_attempt != null &&
      inv.next_payment_attempt <= until &&
      inv.collection_method === 'charge_automatically'
    ) {
      const at = inv.next_payment_attempt;
      steps.push({
        at,
        rank: 1,
        id: inv.id,
        valid: () => {
          const cur = fresh(ctx, 'invoice', inv.id);
          return cur?.status === 'open' && cur.next_payment_attempt === at;
        },
        run: () => retryInvoice(ctx, inv.id),
      });
    }
  }
  for (const sub of withStatus<StripeObject>(ctx, 'subscription', ['active', 'past_due', 'trialing', 'unpaid', 'incomplete'])) {
    if (!onScope(sub)) continue;
    if (sub.status === 'trialing' && sub.trial_end != null && ctx.store.getMeta(trialNoticeKey(sub)) === undefined) {
      const at = Math.max(sub.trial_end - TRIAL_NOTICE_SECONDS, sub.trial_start ?? sub.created);
      if (at <= until && at < sub.trial_end) {
        steps.push({
          at,
          rank: 2,
          id: sub.id,
          valid: () => {
            const cur = fresh(ctx, 'subscription', sub.id);
            return cur?.status === 'trialing' && cur.trial_end === sub.trial_end && ctx.store.getMeta(trialNoticeKey(sub)) === undefined;
          },
          run: () => {
            ctx.store.setMeta(trialNoticeKey(sub), '1');
            emitEvent(ctx, 'customer.subscription.trial_will_end', loadSubscription(ctx, sub.id));
          },
        });
      }
    }
    const resumesAt = sub.pause_collection?.resumes_at as number | null | undefined;
    if (resumesAt != null && resumesAt <= until) {
      steps.push({
        at: resumesAt,
        rank: 7,
        id: sub.id,
        valid: () => fresh(ctx, 'subscription', sub.id)?.pause_collection?.resumes_at === resumesAt,
        run: () => endPauseCollection(ctx, sub.id),
      });
    }
    if (LIVE_STATUSES.includes(sub.status)) {
      if (sub.cancel_at != null && sub.cancel_at <= until && sub.cancel_at <= sub.current_period_end) {
        const at = sub.cancel_at;
        steps.push({
          at,
          rank: 3,
          id: sub.id,
          valid: () => {
            const cur = fresh(ctx, 'subscription', sub.id);
            return Boolean(cur && LIVE_STATUSES.includes(cur.status) && cur.cancel_at === at);
          },
          run: () => void cancelSubscriptionNow(ctx, sub.id, { reason: 'cancellation_requested', invoiceNow: true }),
        });
      } else if (sub.current_period_end <= until) {
        const at = sub.current_period_end as number;
        steps.push({
          at,
          rank: 4,
          id: sub.id,
          valid: () => {
            const cur = fresh(ctx, 'subscription', sub.id);
            return Boolean(cur && LIVE_STATUSES.includes(cur.status) && cur.current_period_end === at);
          },
          run: () => renew(ctx, sub.id, at),
        });
      }
    } else if (sub.status === 'incomplete' && sub.created + INCOMPLETE_EXPIRY_SECONDS <= until) {
      steps.push({
        at: sub.created + INCOMPLETE_EXPIRY_SECONDS,
        rank: 5,
        id: sub.id,
        valid: () => fresh(ctx, 'subscription', sub.id)?.status === 'incomplete',
        run: () => expireIncomplete(ctx, sub.id),
      });
    }
  }
  // Schedule phases change first at an instant, so a renewal falling on a phase boundary bills the new phase.
  const schedules = withStatus<StripeObject>(ctx, 'subscription_schedule', ['active', 'not_started']).filter(onScope);
  for (const step of scheduleSteps(ctx, until, schedules)) steps.push({ ...step, rank: -1 });
  for (const s of testClock === null ? withStatus<StripeObject>(ctx, 'checkout_session', ['open']) : []) {
    if (s.status === 'open' && s.expires_at <= until) {
      steps.push({
        at: s.expires_at,
        rank: 6,
        id: s.id,
        valid: () => fresh(ctx, 'checkout_session', s.id)?.status === 'open',
        run: () => void expireSession(ctx, s.id),
      });
    }
  }
  // Draft and open quotes cancel themselves at `expires_at` (`quote.canceled`).
  for (const q of testClock === null ? withStatus<StripeObject>(ctx, 'quote', QUOTE_EXPIRING) : []) {
    if (q.expires_at <= until) {
      steps.push({
        at: q.expires_at,
        rank: 6,
        id: q.id,
        valid: () => QUOTE_EXPIRING.includes(fresh(ctx, 'quote', q.id)?.status),
        run: () => void cancelQuote(ctx, q.id),
      });
    }
  }
  if (testClock === null) moneySteps(ctx, until, steps);
  return steps;
}

/** Funds settling, payouts arriving and disputes decided by `until`. */
function moneySteps(ctx: TwinContext, until: number, steps: DueStep[]): void {
  for (const txn of withStatus<StripeObject>(ctx, 'balance_transaction', ['pending'])) {
    if (txn.available_on > until) continue;
    steps.push({
      at: txn.available_on,
      rank: 8,
      id: txn.id,
      valid: () => fresh(ctx, 'balance_transaction', txn.id)?.status === 'pending',
      run: () => settleDue(ctx, txn.id),
    });
  }
  for (const po of withStatus<StripeObject>(ctx, 'payout', ['pending', 'in_transit'])) {
    if (po.arrival_date > until) continue;
    steps.push({
      at: po.arrival_date,
      rank: 9,
      id: po.id,
      valid: () => ['pending', 'in_transit'].includes(fresh(ctx, 'payout', po.id)?.status),
      run: () => markPayoutPaid(ctx, po.id),
    });
  }
  const payoutAt = nextAutomaticPayoutAt(ctx);
  if (payoutAt !== undefined && payoutAt <= until) {
    steps.push({
      at: payoutAt,
      rank: 11,
      id: 'automatic_payout',
      valid: () => nextAutomaticPayoutAt(ctx) === payoutAt,
      run: () => runAutomaticPayouts(ctx, payoutAt),
    });
  }
  for (const d of withStatus<Dispute>(ctx, 'dispute', ['needs_response', 'under_review', 'warning_needs_response', 'warning_under_review'])) {
    const decision = dueDecision(ctx, d);
    if (!decision || decision.at > until) continue;
    steps.push({
      at: decision.at,
      rank: 10,
      id: d.id,
      valid: () => {
        const cur = fresh(ctx, 'dispute', d.id) as Dispute | undefined;
        return cur !== undefined && dueDecision(ctx, cur)?.at === decision.at;
      },
      run: () => void settleDispute(ctx, d.id, decision.outcome),
    });
  }
}

/** Period end: a trial ends (or cancels with no payment method, if so configured), or a cycle renews. */
function renew(ctx: TwinContext, id: string, at: number): void {
  const sub = loadSubscription(ctx, id);
  const customer = ctx.store.get<StripeObject>('customer', sub.customer);
  if (!customer || customer.deleted) {
    // Deleting a customer ends its subscriptions on Stripe; a renewal never bills a deleted one.
    cancelSubscriptionNow(ctx, id, { reason: 'cancellation_requested' });
    return;
  }
  const missing = sub.status === 'trialing' && !subscriptionPaymentMethod(ctx, sub) ? sub.trial_settings?.end_behavior?.missing_payment_method : undefined;
  if (missing === 'cancel') {
    cancelSubscriptionNow(ctx, id, { reason: 'cancellation_requested' });
    return;
  }
  if (missing === 'pause') {
    pauseAtTrialEnd(ctx, id);
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

/**
 * The steps due for the platform's objects and for every connected account's (each in its own
 * records, with its own events). A request made for one account (its test clock) moves only that
 * account's objects.
 */
function dueEverywhere(ctx: TwinContext, until: number, testClock: string | null): DueStep[] {
  const steps = dueSteps(ctx, until, testClock);
  if (accountOf(ctx)) return steps;
  for (const { external_id: account } of ctx.store.listRecords('account')) steps.push(...dueSteps(contextFor(ctx, account), until, testClock));
  return steps;
}

/** Run every step due until `to` for the environment's objects, or those of one test clock. */
export function advanceStripe(ctx: TwinContext, to: Date, testClock: string | null = null): void {
  // A step reads the same few records many times (an invoice, its subscription, the customer).
  ctx.store.withReadCache(() => runDueSteps(ctx, to, testClock));
}

function runDueSteps(ctx: TwinContext, to: Date, testClock: string | null): void {
  const until = Math.floor(to.getTime() / 1000);
  // A step that fails (say, a record edited into an impossible state) is skipped, not retried forever.
  const failed = new Set<string>();
  for (let i = 0; i < MAX_STEPS; i++) {
    const steps = dueEverywhere(ctx, until, testClock).filter((s) => !failed.has(`${s.rank}:${s.id}:${s.at}`));
    if (steps.length === 0) return;
    steps.sort((a, b) => a.at - b.at || a.rank - b.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // Every step due at the earliest instant runs in this pass (in rank, then id order); steps
    // they schedule later are found by the next pass. Re-checking each keeps them independent.
    const at = steps[0]!.at;
    ctx.clock.advanceTo(at * 1000);
    let ran = 0;
    for (const next of steps) {
      if (next.at !== at) break;
      try {
        if (next.valid()) {
          ctx.store.transaction(() => next.run());
          ran++;
        }
      } catch (e) {
        failed.add(`${next.rank}:${next.id}:${next.at}`);
        ctx.store.setMeta(`stripe:lifecycle_error:${next.id}:${next.at}`, (e as Error).message);
      }
    }
    // Nothing ran: what is left at this instant can never run; do not spin on it.
    if (ran === 0) for (const st of steps) if (st.at === at) failed.add(`${st.rank}:${st.id}:${st.at}`);
  }
  throw new Error('Stripe lifecycle did not settle: too many steps in one advance.');
}
