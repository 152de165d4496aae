// Payouts to the account's bank account: a manual `payouts.create` takes its amount out of the
// available balance at once (a `payout` balance transaction), or is refused with Stripe's
// `balance_insufficient` error; it arrives a day later, when `advance` marks it `paid`
// (`payout.paid`). A pending payout can be canceled (`payout.canceled`, funds returned).
// Automatic payouts follow the payout schedule of the balance settings (`balance_settings.update`,
// daily / weekly / monthly; the twin's default is manual, so `advance` moves no money unasked):
// at each scheduled UTC midnight the whole available balance is paid out, and the payout remembers
// the balance transactions it paid out (`balance_transactions.list({payout})`).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { availableFunds, balanceTotals, recordMovement, type BalanceTransaction } from './balance.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, keptId, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export type Payout = StripeObject & { object: 'payout' };

/** Standard payouts arrive the next day in test mode. */
export const PAYOUT_ARRIVAL_SECONDS = 86_400;

export const PAYOUT_METHODS = ['standard', 'instant'] as const;

export interface PayoutCreate {
  amount: number;
  currency: string;
  description?: string;
  metadata?: MetadataPatch;
  method?: (typeof PAYOUT_METHODS)[number];
  statementDescriptor?: string;
}

const INSUFFICIENT =
  'You have insufficient funds in your Stripe account for this transfer. Your card balance is too low.  You can use the /v1/balance endpoint to view your Stripe balance (for more details, see stripe.com/docs/api#balance).';

/** The account's test bank account: one id per environment, kept across restarts. */
function bankAccountId(ctx: TwinContext): string {
  return keptId(ctx, 'stripe:payout_bank_account', 'ba_', 24);
}

export function createPayout(ctx: TwinContext, input: PayoutCreate): Payout {
  if (input.amount < 1) throw invalidRequest('Invalid positive integer', 'amount');
  if (input.amount > availableFunds(ctx, input.currency)) throw invalidRequest(INSUFFICIENT, undefined, 'balance_insufficient');
  return newPayout(ctx, input, false);
}

function newPayout(ctx: TwinContext, input: PayoutCreate, automatic: boolean): Payout {
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'payout');
  const txn = recordMovement(ctx, {
    amount: -input.amount,
    currency: input.currency,
    type: 'payout',
    reportingCategory: 'payout',
    source: id,
    description: input.description ?? 'STRIPE PAYOUT',
  });
  const payout: Payout = {
    id,
    object: 'payout',
    amount: input.amount,
    application_fee: null,
    application_fee_amount: null,
    arrival_date: now + (input.method === 'instant' ? 0 : PAYOUT_ARRIVAL_SECONDS),
    automatic,
    balance_transaction: txn.id,
    created: now,
    currency: input.currency,
    description: input.description ?? null,
    destination: bankAccountId(ctx),
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    method: input.method ?? 'standard',
    original_payout: null,
    payout_method: null,
    reconciliation_status: 'not_applicable',
    reversed_by: null,
    source_type: 'card',
    statement_descriptor: input.statementDescriptor ?? schedule(ctx).statement_descriptor ?? null,
    status: 'pending',
    trace_id: { status: 'pending', value: null },
    type: 'bank_account',
  };
  save(ctx, 'payout', payout);
  emitEvent(ctx, 'payout.created', payout);
  return payout;
}

export function getPayout(ctx: TwinContext, id: string): Payout {
  const p = find<Payout>(ctx, 'payout', id);
  if (!p) throw resourceMissing('payout', id, 'payout');
  return p;
}

export function updatePayout(ctx: TwinContext, id: string, metadata: MetadataPatch | undefined): Payout {
  const before = getPayout(ctx, id);
  const payout = clone(before);
  if (metadata !== undefined) payout.metadata = applyMetadata(payout.metadata, metadata);
  const prev = previousAttributes(before, payout);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'payout', payout);
    emitEvent(ctx, 'payout.updated', payout, prev);
  }
  return payout;
}

/** Cancel a pending payout: its funds go back to the available balance. */
export function cancelPayout(ctx: TwinContext, id: string): Payout {
  const before = getPayout(ctx, id);
  if (before.status !== 'pending') {
    throw invalidRequest(`Payouts can only be canceled while they are pending. This payout has status ${before.status}.`, undefined, 'payout_not_cancelable');
  }
  const payout = clone(before);
  const reversal = recordMovement(ctx, {
    amount: payout.amount,
    currency: payout.currency,
    type: 'payout_cancel',
    reportingCategory: 'payout_reversal',
    source: payout.id,
    description: 'Payout canceled',
  });
  payout.status = 'canceled';
  payout.failure_balance_transaction = reversal.id;
  payout.trace_id = { status: 'unsupported', value: null };
  save(ctx, 'payout', payout);
  emitEvent(ctx, 'payout.canceled', payout, previousAttributes(before, payout));
  return payout;
}

/** The payout's arrival date has come: it is paid (the lifecycle's step). */
export function markPayoutPaid(ctx: TwinContext, id: string): void {
  const before = getPayout(ctx, id);
  if (before.status !== 'pending' && before.status !== 'in_transit') return;
  const payout = clone(before);
  payout.status = 'paid';
  payout.trace_id = { status: 'supported', value: `TRACE${payout.id.slice(3, 15).toUpperCase()}` };
  save(ctx, 'payout', payout);
  emitEvent(ctx, 'payout.paid', payout, previousAttributes(before, payout));
}

export function listPayouts(ctx: TwinContext, filter: { status?: string; destination?: string }, window: ListWindow): ListPage<Payout> {
  const equals: FieldEquals = {};
  if (filter.status !== undefined) equals.status = filter.status;
  if (filter.destination !== undefined) equals.destination = filter.destination;
  return readPage<Payout>(ctx, 'payout', equals, window);
}

export const PAYOUT_INTERVALS = ['manual', 'daily', 'weekly', 'monthly'] as const;
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export interface PayoutSchedule {
  interval: (typeof PAYOUT_INTERVALS)[number];
  weekly_payout_days?: string[];
  monthly_payout_days?: number[];
  statement_descriptor?: string | null;
}

const SCHEDULE_KEY = 'stripe:payout_schedule';
/** The last UTC midnight the automatic payout step ran for. */
const LAST_RUN_KEY = 'stripe:auto_payout_last';
const DAY = 86_400;
const paidOutKey = (txn: string) => `stripe:paid_out:${txn}`;
const payoutTxnsKey = (payout: string) => `stripe:payout_txns:${payout}`;

function schedule(ctx: TwinContext): PayoutSchedule {
  const raw = ctx.store.getMeta(SCHEDULE_KEY);
  return raw ? (JSON.parse(raw) as PayoutSchedule) : { interval: 'manual' };
}

/** `GET /v1/balance_settings`. */
export function getBalanceSettings(ctx: TwinContext): { object: 'balance_settings' } & Record<string, unknown> {
  const s = schedule(ctx);
  const shown: Record<string, unknown> = { interval: s.interval };
  if (s.interval === 'weekly') shown.weekly_payout_days = s.weekly_payout_days ?? ['monday'];
  if (s.interval === 'monthly') shown.monthly_payout_days = s.monthly_payout_days ?? [1];
  return {
    object: 'balance_settings',
    payments: {
      debit_negative_balances: true,
      payouts: {
        automatic_transfer_rules_by_currency: null,
        minimum_balance_by_currency: null,
        schedule: shown,
        statement_descriptor: s.statement_descriptor ?? null,
        status: 'enabled',
      },
      settlement_timing: { delay_days: 2, start_of_day: null },
    },
  };
}

/** `POST /v1/balance_settings`: the payout schedule (and its statement descriptor). */
export function updateBalanceSettings(ctx: TwinContext, input: Partial<PayoutSchedule>): ReturnType<typeof getBalanceSettings> {
  const before = schedule(ctx);
  const next: PayoutSchedule = { ...before, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
  if (next.interval !== 'weekly') delete next.weekly_payout_days;
  if (next.interval !== 'monthly') delete next.monthly_payout_days;
  for (const d of next.monthly_payout_days ?? []) {
    if (!Number.isInteger(d) || d < 1 || d > 31)
      throw invalidRequest('Monthly payout days must be between 1 and 31.', 'payments[payouts][schedule][monthly_payout_days]');
  }
  ctx.store.setMeta(SCHEDULE_KEY, JSON.stringify(next));
  // Automatic payouts start from the next midnight, not from the past.
  if (before.interval === 'manual' && next.interval !== 'manual') ctx.store.setMeta(LAST_RUN_KEY, String(Math.floor(ctx.clock.nowSeconds() / DAY) * DAY));
  return getBalanceSettings(ctx);
}

/** The next UTC midnight the automatic payout step runs at, or undefined under a manual schedule. */
export function nextAutomaticPayoutAt(ctx: TwinContext): number | undefined {
  if (schedule(ctx).interval === 'manual') return undefined;
  const last = Number(ctx.store.getMeta(LAST_RUN_KEY) ?? Math.floor(ctx.clock.nowSeconds() / DAY) * DAY);
  return last + DAY;
}

function scheduledOn(s: PayoutSchedule, midnight: number): boolean {
  const date = new Date(midnight * 1000);
  if (s.interval === 'daily') return true;
  if (s.interval === 'weekly') return (s.weekly_payout_days ?? ['monday']).includes(WEEKDAYS[date.getUTCDay()]!);
  if (s.interval === 'monthly') {
    const days = s.monthly_payout_days ?? [1];
    const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
    // A 31 in a 30-day month pays out on its last day, as Stripe does.
    return days.some((d) => Math.min(d, lastDay) === date.getUTCDate());
  }
  return false;
}

/** The automatic payout step at `midnight`: on a scheduled day, pay out each positive available balance. */
export function runAutomaticPayouts(ctx: TwinContext, midnight: number): void {
  ctx.store.setMeta(LAST_RUN_KEY, String(midnight));
  const s = schedule(ctx);
  if (!scheduledOn(s, midnight)) return;
  const uncovered = ctx.store
    .list<BalanceTransaction>('balance_transaction')
    .filter((b) => b.status === 'available' && ctx.store.getMeta(paidOutKey(b.id)) === undefined);
  for (const [currency, amount] of balanceTotals(ctx).available) {
    if (amount <= 0) continue;
    const payout = newPayout(ctx, { amount, currency }, true);
    const covered = uncovered.filter((b) => b.currency === currency).map((b) => b.id);
    covered.push(payout.balance_transaction as string);
    for (const id of covered) ctx.store.setMeta(paidOutKey(id), payout.id);
    ctx.store.setMeta(payoutTxnsKey(payout.id), JSON.stringify(covered));
  }
}

/** The balance transactions an automatic payout paid out (its own included), oldest first. */
export function paidOutBy(ctx: TwinContext, payoutId: string): BalanceTransaction[] {
  const ids = JSON.parse(ctx.store.getMeta(payoutTxnsKey(payoutId)) ?? '[]') as string[];
  return ids.map((id) => ctx.store.get<BalanceTransaction>('balance_transaction', id)).filter((b): b is BalanceTransaction => b !== undefined);
}
