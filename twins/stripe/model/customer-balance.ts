// A customer's invoice credit balance (`customer.balance`: negative is credit, positive is debt)
// and its ledger, the customer balance transactions. Every change to the balance goes through
// `changeBalance`, so the ledger and `customer.balance` never disagree; invoices apply the balance
// at finalization (`applyBalanceToInvoice`).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { applyMetadata, clone, find, newId, save, type MetadataPatch, type StripeObject } from './objects.js';
import { getCustomer, patchCustomer } from './customers.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export const BALANCE_TRANSACTION_TYPES = [
  'adjustment',
  'applied_to_invoice',
  'credit_note',
  'initial',
  'invoice_overpaid',
  'invoice_too_large',
  'invoice_too_small',
  'migration',
  'unapplied_from_invoice',
  'unspent_receiver_credit',
] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

export interface BalanceChange {
  amount: number;
  currency: string;
  type: BalanceTransactionType;
  description?: string | null;
  invoice?: string | null;
  creditNote?: string | null;
  metadata?: MetadataPatch;
}

/** Move `customer.balance` by `amount` and record it (`customer.updated` when it changed). */
export function changeBalance(ctx: TwinContext, customerId: string, change: BalanceChange): StripeObject {
  const customer = getCustomer(ctx, customerId);
  const currency = change.currency.toLowerCase();
  if (customer.currency && customer.currency !== currency && (customer.balance ?? 0) !== 0) {
    throw invalidRequest(
      `The currency of this customer's balance is ${customer.currency}; a balance transaction in ${currency} cannot be applied.`,
      'currency',
    );
  }
  const ending = (customer.balance ?? 0) + change.amount;
  const txn: StripeObject = {
    id: newId(ctx, 'customer_balance_transaction'),
    object: 'customer_balance_transaction',
    amount: change.amount,
    checkout_session: null,
    created: ctx.clock.nowSeconds(),
    credit_note: change.creditNote ?? null,
    currency,
    customer: customerId,
    customer_account: null,
    description: change.description ?? null,
    ending_balance: ending,
    invoice: change.invoice ?? null,
    livemode: false,
    metadata: change.metadata === undefined ? {} : applyMetadata({}, change.metadata),
    type: change.type,
  };
  save(ctx, 'customer_balance_transaction', txn);
  patchCustomer(ctx, customerId, { balance: ending, currency: customer.currency ?? currency });
  return txn;
}

/** `POST /v1/customers/{id}/balance_transactions`: a manual adjustment. */
export function createBalanceTransaction(
  ctx: TwinContext,
  customerId: string,
  input: { amount: number; currency: string; description?: string; metadata?: MetadataPatch },
): StripeObject {
  if (input.amount === 0) throw invalidRequest('The amount of a customer balance transaction must not be zero.', 'amount');
  return changeBalance(ctx, customerId, { ...input, type: 'adjustment' });
}

export function getBalanceTransaction(ctx: TwinContext, customerId: string, id: string): StripeObject {
  getCustomer(ctx, customerId, 'customer');
  const txn = find(ctx, 'customer_balance_transaction', id);
  if (!txn || txn.customer !== customerId) throw resourceMissing('customer balance transaction', id, 'transaction');
  return txn;
}

export function updateBalanceTransaction(
  ctx: TwinContext,
  customerId: string,
  id: string,
  input: { description?: string | null; metadata?: MetadataPatch },
): StripeObject {
  const txn = clone(getBalanceTransaction(ctx, customerId, id));
  if (input.description !== undefined) txn.description = input.description;
  if (input.metadata !== undefined) txn.metadata = applyMetadata(txn.metadata ?? {}, input.metadata);
  return save(ctx, 'customer_balance_transaction', txn);
}

export function listBalanceTransactions(ctx: TwinContext, customerId: string, filter: { invoice?: string }, window: ListWindow): ListPage<StripeObject> {
  getCustomer(ctx, customerId, 'customer');
  const equals: FieldEquals = { customer: customerId };
  if (filter.invoice !== undefined) equals.invoice = filter.invoice;
  return readPage<StripeObject>(ctx, 'customer_balance_transaction', equals, window);
}

/**
 * What finalizing an invoice of `total` does with the customer's balance `balance`: a credit pays
 * up to the whole invoice, a debt is added to it, and a negative total becomes credit.
 */
export function balanceApplication(balance: number, total: number): { amountDue: number; endingBalance: number } {
  if (total <= 0) return { amountDue: 0, endingBalance: balance + total };
  if (balance < 0) {
    const used = Math.min(-balance, total);
    return { amountDue: total - used, endingBalance: balance + used };
  }
  return { amountDue: total + balance, endingBalance: 0 };
}
