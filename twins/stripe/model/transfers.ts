// Connect money movement: transfers (`tr_…`) from the platform's balance to a connected account,
// their reversals, and the application fees (`fee_…`) a platform collects on destination charges.
// A transfer moves funds as Stripe's ledger shows it: a `transfer` balance transaction taking the
// amount out of the platform's balance and, on the connected account, a payment (`py_…`) with a
// `payment` balance transaction bringing it in (less the application fee, for a destination
// charge). A transfer without `source_transaction` needs that much available in the platform's
// balance (Stripe's `balance_insufficient`); one tied to a charge spends that charge's funds.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing, StripeApiError } from '../wire/errors.js';
import { accountOf, contextFor, isConnectedAccount, platformContext } from '../wire/connect-scope.js';
import { addApplicationFee, availableFunds, recordMovement, SETTLEMENT_SECONDS } from './balance.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { eachMatching, readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { getAccount, platformApplication } from './accounts.js';

export type Transfer = StripeObject & { object: 'transfer' };
export type ApplicationFee = StripeObject & { object: 'application_fee' };

export interface TransferCreate {
  amount: number;
  currency: string;
  destination: string;
  description?: string;
  metadata?: MetadataPatch;
  sourceTransaction?: string;
  transferGroup?: string;
}

/** A connected account the platform may send funds to, or Stripe's error naming `param`. */
export function checkDestination(ctx: TwinContext, destination: string, param: string): void {
  if (!isConnectedAccount(ctx, destination)) throw resourceMissing('destination', destination, param);
  const account = getAccount(ctx, destination);
  const caps = account.capabilities as Record<string, string>;
  if (!['transfers', 'crypto_transfers', 'legacy_payments'].some((c) => caps[c] === 'active')) {
    throw invalidRequest(
      'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
      param,
      'insufficient_capabilities_for_transfer',
    );
  }
}

/** The payment (`py_…`) a transfer lands as on the connected account, with its balance transaction. */
function landPayment(ctx: TwinContext, transfer: Transfer, fee: { amount: number; application: string } | null, availableOn: number): string {
  const account = contextFor(ctx, transfer.destination);
  const id = ctx.ids.next('py_', 24);
  const txn = recordMovement(account, {
    amount: transfer.amount,
    currency: transfer.currency,
    type: 'payment',
    reportingCategory: 'charge',
    source: id,
    fee: fee ? { amount: fee.amount, description: 'Application fee', application: fee.application } : undefined,
    availableOn,
  });
  const payment: StripeObject = {
    id,
    object: 'charge',
    amount: transfer.amount,
    amount_captured: transfer.amount,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: txn.id,
    billing_details: { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null },
    calculated_statement_descriptor: null,
    captured: true,
    created: account.clock.nowSeconds(),
    currency: transfer.currency,
    customer: null,
    description: null,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    fraud_details: {},
    livemode: false,
    metadata: {},
    on_behalf_of: null,
    outcome: null,
    paid: true,
    payment_intent: null,
    payment_method: null,
    payment_method_details: { stripe_account: {}, type: 'stripe_account' },
    receipt_email: null,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    refunds: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/charges/${id}/refunds` },
    review: null,
    shipping: null,
    source: null,
    source_transfer: transfer.id,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: 'succeeded',
    transfer_data: null,
    transfer_group: transfer.transfer_group,
  };
  account.store.put('charge', id, payment);
  return id;
}

interface TransferOptions {
  /** The destination charge's application fee, taken from the payment on the connected account. */
  applicationFee?: number;
  /** Funds of the source charge become available on the account when the charge's do. */
  availableOn?: number;
}

function makeTransfer(ctx: TwinContext, input: TransferCreate, opts: TransferOptions = {}): Transfer {
  const platform = platformContext(ctx);
  const id = platform.ids.next('tr_', 24);
  const transfer: Transfer = {
    id,
    object: 'transfer',
    amount: input.amount,
    amount_reversed: 0,
    balance_transaction: null,
    created: platform.clock.nowSeconds(),
    currency: input.currency,
    description: input.description ?? null,
    destination: input.destination,
    destination_payment: null,
    livemode: false,
    metadata: input.metadata ? applyMetadata({}, input.metadata) : {},
    reversals: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
    reversed: false,
    source_transaction: input.sourceTransaction ?? null,
    source_type: 'card',
    transfer_group: input.transferGroup ?? null,
  };
  transfer.balance_transaction = recordMovement(platform, {
    amount: -input.amount,
    currency: input.currency,
    type: 'transfer',
    reportingCategory: 'transfer',
    source: id,
  }).id;
  const fee = opts.applicationFee ? { amount: opts.applicationFee, application: platformApplication(platform) } : null;
  transfer.destination_payment = landPayment(platform, transfer, fee, opts.availableOn ?? platform.clock.nowSeconds());
  platform.store.put('transfer', id, transfer);
  emitEvent(platform, 'transfer.created', transfer);
  return transfer;
}

/** `POST /v1/transfers` (always the platform's: a transfer is made by the platform). */
export function createTransfer(ctx: TwinContext, input: TransferCreate): Transfer {
  const platform = platformContext(ctx);
  if (input.amount < 1) throw invalidRequest('Invalid positive integer', 'amount');
  checkDestination(platform, input.destination, 'destination');
  let availableOn: number | undefined;
  if (input.sourceTransaction) {
    const charge = find(platform, 'charge', input.sourceTransaction);
    if (!charge) throw resourceMissing('charge', input.sourceTransaction, 'source_transaction');
    if (charge.currency !== input.currency) {
      throw invalidRequest(
        `The currency of source_transaction's balance transaction (${charge.currency}) must be the same as the transfer currency (${input.currency})`,
        'currency',
      );
    }
    // What the charge still holds: captured, less refunds and the transfers already made from it.
    let transferred = 0;
    for (const t of eachMatching<Transfer>(platform, 'transfer', { source_transaction: charge.id })) transferred += t.amount - t.amount_reversed;
    if (input.amount > charge.amount_captured - charge.amount_refunded - transferred) {
      throw invalidRequest(`Transfer amount exceeds the source transaction's remaining amount.`, 'amount');
    }
    availableOn = charge.created + SETTLEMENT_SECONDS;
  } else if (availableFunds(platform, input.currency) < input.amount) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      code: 'balance_insufficient',
      message:
        'You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card. See: https://stripe.com/docs/testing#available-balance',
    });
  }
  return makeTransfer(platform, input, { availableOn });
}

export function getTransfer(ctx: TwinContext, id: string): Transfer {
  const found = find<Transfer>(platformContext(ctx), 'transfer', id);
  if (!found) throw resourceMissing('transfer', id, 'id');
  return found;
}

export function updateTransfer(ctx: TwinContext, id: string, input: { description?: string | null; metadata?: MetadataPatch }): Transfer {
  const platform = platformContext(ctx);
  const before = getTransfer(platform, id);
  const after = clone(before);
  if (input.description !== undefined) after.description = input.description;
  if (input.metadata !== undefined) after.metadata = applyMetadata(after.metadata, input.metadata);
  platform.store.put('transfer', id, after);
  const prev = previousAttributes(before, after);
  if (Object.keys(prev).length) emitEvent(platform, 'transfer.updated', after, prev);
  return after;
}

export function listTransfers(ctx: TwinContext, filter: { destination?: string; transferGroup?: string }, window: ListWindow): ListPage<Transfer> {
  const equals: FieldEquals = {};
  if (filter.destination !== undefined) equals.destination = filter.destination;
  if (filter.transferGroup !== undefined) equals.transfer_group = filter.transferGroup;
  return readPage<Transfer>(platformContext(ctx), 'transfer', equals, window);
}

/** How much of something is given back: what is asked, or all that remains; never more. */
function partOf(asked: number | undefined, remaining: number, what: string): number {
  const amount = asked ?? remaining;
  if (amount < 1) throw invalidRequest('Invalid positive integer', 'amount');
  if (amount > remaining) throw invalidRequest(`Amount (${amount}) is greater than the amount remaining on the ${what} (${remaining}).`, 'amount');
  return amount;
}

/** A list an object carries (a transfer's reversals, a fee's refunds) with `entry` first. */
function prepended(list: { data: StripeObject[]; total_count: number }, entry: StripeObject) {
  return { ...list, data: [entry, ...list.data], total_count: list.total_count + 1 };
}

/** Reverse (part of) a transfer: the funds leave the connected account and return to the platform. */
export function reverseTransfer(
  ctx: TwinContext,
  id: string,
  input: { amount?: number; description?: string; metadata?: MetadataPatch; sourceRefund?: string },
): StripeObject {
  const platform = platformContext(ctx);
  const before = getTransfer(platform, id);
  const amount = partOf(input.amount, before.amount - before.amount_reversed, 'transfer');
  const reversalId = platform.ids.next('trr_', 24);
  const account = contextFor(platform, before.destination);
  const refundId = platform.ids.next('pyr_', 24);
  recordMovement(account, { amount: -amount, currency: before.currency, type: 'payment_refund', reportingCategory: 'refund', source: refundId });
  const txn = recordMovement(platform, {
    amount,
    currency: before.currency,
    type: 'transfer_refund',
    reportingCategory: 'transfer_reversal',
    source: reversalId,
  });
  const reversal: StripeObject = {
    id: reversalId,
    object: 'transfer_reversal',
    amount,
    balance_transaction: txn.id,
    created: platform.clock.nowSeconds(),
    currency: before.currency,
    destination_payment_refund: refundId,
    metadata: input.metadata ? applyMetadata({}, input.metadata) : {},
    source_refund: input.sourceRefund ?? null,
    transfer: id,
  };
  const after = clone(before);
  after.amount_reversed += amount;
  after.reversed = after.amount_reversed === after.amount;
  after.reversals = prepended(after.reversals, reversal);
  platform.store.put('transfer', id, after);
  emitEvent(platform, 'transfer.reversed', after, previousAttributes(before, after));
  return reversal;
}

/**
 * A destination charge was captured: its funds go to the destination in a transfer, and the
 * platform keeps `application_fee_amount` as an application fee taken from the account's payment.
 * Answers the ids the charge shows (`transfer`, `application_fee`).
 */
export function settleDestinationCharge(ctx: TwinContext, charge: StripeObject): { transfer: string; applicationFee: string | null } {
  const platform = platformContext(ctx);
  const destination: string = charge.transfer_data.destination;
  const amount = Math.min(charge.transfer_data.amount ?? charge.amount_captured, charge.amount_captured);
  const feeAmount: number | null = charge.transfer_data.amount == null ? (charge.application_fee_amount ?? null) : null;
  const transfer = makeTransfer(
    platform,
    {
      amount,
      currency: charge.currency,
      destination,
      sourceTransaction: charge.id,
      transferGroup: charge.transfer_group ?? `group_${charge.payment_intent ?? charge.id}`,
    },
    { applicationFee: feeAmount ?? undefined, availableOn: charge.created + SETTLEMENT_SECONDS },
  );
  if (!feeAmount) return { transfer: transfer.id, applicationFee: null };
  const fee = recordApplicationFee(platform, {
    account: destination,
    amount: feeAmount,
    currency: charge.currency,
    charge: transfer.destination_payment,
    originating: charge.id,
    availableOn: charge.created + SETTLEMENT_SECONDS,
  });
  return { transfer: transfer.id, applicationFee: fee.id };
}

/** The platform's application fee on a connected account's payment, and its balance transaction. */
interface FeeInput {
  account: string;
  amount: number;
  currency: string;
  /** The charge on the connected account the fee is taken from. */
  charge: string;
  /** The platform's charge of a destination charge. */
  originating: string | null;
  availableOn: number;
}

function recordApplicationFee(ctx: TwinContext, f: FeeInput): ApplicationFee {
  const platform = platformContext(ctx);
  const id = platform.ids.next('fee_', 24);
  const { currency } = f;
  const txn = recordMovement(platform, {
    amount: f.amount,
    currency,
    type: 'application_fee',
    reportingCategory: 'platform_earning',
    source: id,
    availableOn: f.availableOn,
  });
  const fee: ApplicationFee = {
    id,
    object: 'application_fee',
    account: f.account,
    amount: f.amount,
    amount_refunded: 0,
    application: platformApplication(platform),
    balance_transaction: txn.id,
    charge: f.charge,
    created: platform.clock.nowSeconds(),
    currency,
    fee_source: { charge: f.charge, type: 'charge' },
    livemode: false,
    originating_transaction: f.originating,
    refunded: false,
    refunds: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/application_fees/${id}/refunds` },
  };
  platform.store.put('application_fee', id, fee);
  emitEvent(platform, 'application_fee.created', fee);
  return fee;
}

/**
 * A direct charge made for a connected account (`Stripe-Account`) with `application_fee_amount`:
 * the fee leaves the account's funds of the charge (a fee line of its balance transaction) and
 * becomes the platform's application fee.
 */
export function collectDirectFee(ctx: TwinContext, charge: StripeObject): { application: string; applicationFee: string } {
  const account = accountOf(ctx)!;
  const application = platformApplication(ctx);
  addApplicationFee(ctx, charge.balance_transaction, charge.application_fee_amount, application);
  const fee = recordApplicationFee(ctx, {
    account,
    amount: charge.application_fee_amount,
    currency: charge.currency,
    charge: charge.id,
    originating: null,
    availableOn: charge.created + SETTLEMENT_SECONDS,
  });
  return { application, applicationFee: fee.id };
}

export function getApplicationFee(ctx: TwinContext, id: string): ApplicationFee {
  const found = platformContext(ctx).store.get<ApplicationFee>('application_fee', id);
  if (!found) throw resourceMissing('application fee', id, 'id');
  return found;
}

export function listApplicationFees(ctx: TwinContext, filter: { charge?: string }, window: ListWindow): ListPage<ApplicationFee> {
  const equals: FieldEquals = {};
  if (filter.charge !== undefined) equals.charge = filter.charge;
  return readPage<ApplicationFee>(platformContext(ctx), 'application_fee', equals, window);
}

/**
 * Give back (part of) an application fee: the platform returns it to the connected account, the
 * fee shows `amount_refunded` and a fee refund (`fr_…`), and `application_fee.refunded` is sent.
 */
export function refundApplicationFee(ctx: TwinContext, id: string, input: { amount?: number; metadata?: MetadataPatch }): StripeObject {
  const platform = platformContext(ctx);
  const before = getApplicationFee(platform, id);
  const amount = partOf(input.amount, before.amount - before.amount_refunded, 'application fee');
  const refundId = platform.ids.next('fr_', 24);
  const txn = recordMovement(platform, {
    amount: -amount,
    currency: before.currency,
    type: 'application_fee_refund',
    reportingCategory: 'platform_earning_refund',
    source: refundId,
  });
  recordMovement(contextFor(platform, before.account), {
    amount,
    currency: before.currency,
    type: 'application_fee_refund',
    reportingCategory: 'fee',
    source: refundId,
  });
  const refund: StripeObject = {
    id: refundId,
    object: 'fee_refund',
    amount,
    balance_transaction: txn.id,
    created: platform.clock.nowSeconds(),
    currency: before.currency,
    fee: id,
    metadata: input.metadata ? applyMetadata({}, input.metadata) : {},
  };
  const after = clone(before);
  after.amount_refunded += amount;
  after.refunded = after.amount_refunded === after.amount;
  after.refunds = prepended(after.refunds, refund);
  platform.store.put('application_fee', id, after);
  emitEvent(platform, 'application_fee.refunded', after, previousAttributes(before, after));
  return refund;
}

/**
 * What a refund of a Connect charge gives back besides the customer's money: with
 * `reverse_transfer` the destination's share (in proportion to the refund), with
 * `refund_application_fee` the application fee (likewise). Answers the reversal's id, if any.
 */
export function unwindConnectCharge(
  ctx: TwinContext,
  charge: StripeObject,
  refund: { id: string; amount: number },
  opts: { reverseTransfer?: boolean; refundApplicationFee?: boolean },
): string | null {
  const share = (whole: number) => Math.round((whole * refund.amount) / charge.amount_captured);
  let reversal: string | null = null;
  if (opts.reverseTransfer && charge.transfer) {
    const transfer = getTransfer(ctx, charge.transfer);
    const amount = Math.min(share(transfer.amount), transfer.amount - transfer.amount_reversed);
    if (amount > 0) reversal = reverseTransfer(ctx, transfer.id, { amount, sourceRefund: refund.id }).id;
  }
  if (opts.refundApplicationFee && charge.application_fee) {
    const fee = getApplicationFee(ctx, charge.application_fee);
    const amount = Math.min(share(fee.amount), fee.amount - fee.amount_refunded);
    if (amount > 0) refundApplicationFee(ctx, fee.id, { amount });
  }
  return reversal;
}
