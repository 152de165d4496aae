// The account's money: one balance transaction (`txn_…`) for every movement of funds (a captured
// charge, a refund, a dispute's withdrawal and reinstatement, a payout), each with Stripe's fee and
// the net. Funds from charges are `pending` until `available_on` (two days later), when the
// environment clock's `advance` makes them `available`; the balance (`GET /v1/balance`) is the sum
// of the nets by status and currency, so it can never disagree with the ledger.

import { bypassesPending } from './test-cards.js';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { find, newId, save, type StripeObject } from './objects.js';
import { pageOf, readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { paidOutBy } from './payouts.js';
import { accountOf, scopedResource } from '../wire/connect-scope.js';

export type BalanceTransaction = StripeObject & { object: 'balance_transaction' };

export const BALANCE_TRANSACTION_TYPES = [
  'charge',
  'refund',
  'refund_failure',
  'adjustment',
  'payout',
  'payout_cancel',
  'payment',
  'payment_refund',
  'stripe_fee',
  'transfer',
  'transfer_refund',
  'application_fee',
  'application_fee_refund',
] as const;

/** Card funds settle two days after capture (Stripe's standard US schedule in test mode). */
export const SETTLEMENT_SECONDS = 2 * 86_400;

/** Stripe's US card pricing: 2.9 % + 30¢ on each successful charge (rounded half up to the cent). */
export function cardProcessingFee(amount: number): number {
  return Math.round(amount * 0.029) + 30;
}

/** What Stripe takes for a dispute (US, 15.00 USD). */
export const DISPUTE_FEE = 1500;

export interface Movement {
  /** Positive: funds in; negative: funds out. */
  amount: number;
  currency: string;
  type: (typeof BALANCE_TRANSACTION_TYPES)[number];
  reportingCategory: string;
  source: string;
  description?: string | null;
  /**
   * Stripe's fee (negative when a fee is returned), with its `fee_details` description; `application`
   * marks a platform's application fee taken from a connected account's payment.
   */
  fee?: { amount: number; description: string; application?: string };
  /** Default: available at once (refunds, dispute withdrawals, payouts). */
  availableOn?: number;
}

/** Record one movement of funds and answer its balance transaction. */
export function recordMovement(ctx: TwinContext, m: Movement): BalanceTransaction {
  const now = ctx.clock.nowSeconds();
  const fee = m.fee?.amount ?? 0;
  const availableOn = m.availableOn ?? now;
  const txn: BalanceTransaction = {
    id: newId(ctx, 'balance_transaction'),
    object: 'balance_transaction',
    amount: m.amount,
    available_on: availableOn,
    balance_type: 'payments',
    created: now,
    currency: m.currency,
    description: m.description ?? null,
    exchange_rate: null,
    fee,
    fee_details: m.fee
      ? [
          {
            amount: fee,
            application: m.fee.application ?? null,
            currency: m.currency,
            description: m.fee.description,
            type: m.fee.application ? 'application_fee' : 'stripe_fee',
          },
        ]
      : [],
    net: m.amount - fee,
    reporting_category: m.reportingCategory,
    source: m.source,
    status: availableOn <= now ? 'available' : 'pending',
    type: m.type,
  };
  return save(ctx, 'balance_transaction', txn);
}

/** The funds of a captured charge: pending for two days, less the card processing fee. */
export function recordChargeFunds(ctx: TwinContext, charge: StripeObject, captured: number): BalanceTransaction {
  return recordMovement(ctx, {
    amount: captured,
    currency: charge.currency,
    type: 'charge',
    reportingCategory: 'charge',
    source: charge.id,
    description: charge.description ?? null,
    fee: { amount: cardProcessingFee(captured), description: 'Stripe processing fees' },
    // Stripe's bypass-pending test cards make the funds available at once.
    availableOn: ctx.clock.nowSeconds() + (bypassesPending(charge.payment_method_details?.card?.last4) ? 0 : SETTLEMENT_SECONDS),
  });
}

/** A platform's application fee taken from a charge's funds on the connected account: one more fee line. */
export function addApplicationFee(ctx: TwinContext, txnId: string, amount: number, application: string): void {
  const txn = find<BalanceTransaction>(ctx, 'balance_transaction', txnId);
  if (!txn) return;
  txn.fee_details.push({ amount, application, currency: txn.currency, description: 'Application fee', type: 'application_fee' });
  save(ctx, 'balance_transaction', { ...txn, fee: txn.fee + amount, net: txn.net - amount });
}

/** A refund takes its amount back at once; Stripe keeps the original charge's fee. */
export function recordRefundFunds(ctx: TwinContext, refund: StripeObject): BalanceTransaction {
  return recordMovement(ctx, {
    amount: -refund.amount,
    currency: refund.currency,
    type: 'refund',
    reportingCategory: 'refund',
    source: refund.id,
    description: 'REFUND FOR CHARGE',
  });
}

export function getBalanceTransaction(ctx: TwinContext, id: string): BalanceTransaction {
  const txn = find<BalanceTransaction>(ctx, 'balance_transaction', id);
  if (!txn) throw resourceMissing('balance transaction', id, 'id');
  return txn;
}

/** Pending funds whose `available_on` has come become available (the lifecycle's step). */
export function settleDue(ctx: TwinContext, id: string): void {
  const txn = find<BalanceTransaction>(ctx, 'balance_transaction', id);
  if (txn?.status !== 'pending') return;
  save(ctx, 'balance_transaction', { ...txn, status: 'available' });
}

export interface BalanceAmount {
  amount: number;
  currency: string;
  source_types: { card: number };
}

/** Net funds per currency and status (`usd` shown at zero on an account with no movements yet). */
export function balanceTotals(ctx: TwinContext): { available: Map<string, number>; pending: Map<string, number> } {
  const available = new Map<string, number>();
  const pending = new Map<string, number>();
  const rows = ctx.store.db
    .prepare(
      `SELECT json_extract(body, '$.currency') AS currency, json_extract(body, '$.status') AS status, SUM(json_extract(body, '$.net')) AS net
         FROM records WHERE resource = ? GROUP BY 1, 2`,
    )
    .all(scopedResource(accountOf(ctx), 'balance_transaction')) as { currency: string; status: string; net: number }[];
  for (const r of rows) {
    const into = r.status === 'pending' ? pending : available;
    into.set(r.currency, (into.get(r.currency) ?? 0) + r.net);
  }
  return { available, pending };
}

function amounts(byCurrency: Map<string, number>, currencies: string[]): BalanceAmount[] {
  return currencies.map((currency) => {
    const amount = byCurrency.get(currency) ?? 0;
    return { amount, currency, source_types: { card: amount } };
  });
}

/** `GET /v1/balance`. */
export function getBalance(ctx: TwinContext): { object: 'balance'; available: BalanceAmount[]; pending: BalanceAmount[] } & Record<string, unknown> {
  const { available, pending } = balanceTotals(ctx);
  const currencies = [...new Set(['usd', ...available.keys(), ...pending.keys()])].sort();
  return {
    object: 'balance',
    available: amounts(available, currencies),
    livemode: false,
    pending: amounts(pending, currencies),
    refund_and_dispute_prefunding: { available: amounts(new Map(), currencies), pending: amounts(new Map(), currencies) },
  };
}

/** Funds available now in `currency`. */
export function availableFunds(ctx: TwinContext, currency: string): number {
  return balanceTotals(ctx).available.get(currency) ?? 0;
}

export interface BalanceTransactionFilter {
  type?: string;
  source?: string;
  currency?: string;
  payout?: string;
}

/** One page of balance transactions, newest first. */
export function listBalanceTransactions(ctx: TwinContext, filter: BalanceTransactionFilter, window: ListWindow): ListPage<BalanceTransaction> {
  const equals: FieldEquals = {};
  if (filter.type !== undefined) equals.type = filter.type;
  if (filter.source !== undefined) equals.source = filter.source;
  if (filter.currency !== undefined) equals.currency = filter.currency;
  if (filter.payout !== undefined) {
    const payout = find(ctx, 'payout', filter.payout);
    if (!payout) throw resourceMissing('payout', filter.payout, 'payout');
    // Stripe lists what a payout paid out only for automatic payouts.
    if (!payout.automatic) throw invalidRequest('Balance transaction history can only be filtered on automatic transfers, not manual.', 'payout');
    const matches = (b: BalanceTransaction) => Object.entries(equals).every(([k, v]) => b[k] === v);
    return pageOf(paidOutBy(ctx, filter.payout).filter(matches), window);
  }
  return readPage<BalanceTransaction>(ctx, 'balance_transaction', equals, window);
}
