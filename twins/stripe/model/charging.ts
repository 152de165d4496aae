// One attempt to charge a card: a `charge` record (succeeded or failed, captured or only
// authorized) with the outcome Stripe's test cards produce, and its `charge.succeeded` /
// `charge.failed` event. Payment intents and invoices call this; they own their own status.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { recordChargeFunds } from './balance.js';
import { disputeIfTestCard } from './disputes.js';
import { emitEvent } from './events.js';
import { find, newId, save, type StripeJson, type StripeObject } from './objects.js';
import { openReview } from './reviews.js';
import { declineFor, riskFor, type RiskEvaluation } from './test-cards.js';
import { collectDirectFee, settleDestinationCharge } from './transfers.js';
import { accountOf } from '../wire/connect-scope.js';

export interface ChargeFailure {
  code: string;
  decline_code: string;
  message: string;
}

export interface ChargeInput {
  amount: number;
  currency: string;
  customer: string | null;
  /** A payment method record or its id. */
  paymentMethod: string | StripeObject;
  description?: string | null;
  invoice?: string | null;
  paymentIntent?: string | null;
  /** False only authorizes (capture_method=manual). Default true. */
  capture?: boolean;
  metadata?: Record<string, string>;
  receiptEmail?: string | null;
  statementDescriptor?: string | null;
  /** A destination charge: its funds go to this connected account once captured. */
  transferData?: { destination: string; amount?: number } | null;
  applicationFeeAmount?: number | null;
  transferGroup?: string | null;
  onBehalfOf?: string | null;
}

export type Charge = StripeObject & { object: 'charge' };

/**
 * A captured charge's Connect side (set on the charge): a destination charge's transfer and
 * application fee, or the application fee of a direct charge made for a connected account.
 */
export function settleConnect(ctx: TwinContext, charge: StripeObject): void {
  if (charge.transfer_data) {
    const { transfer, applicationFee } = settleDestinationCharge(ctx, charge);
    charge.transfer = transfer;
    charge.application_fee = applicationFee;
  } else if (charge.application_fee_amount && accountOf(ctx)) {
    const { application, applicationFee } = collectDirectFee(ctx, charge);
    charge.application = application;
    charge.application_fee = applicationFee;
  }
}

function riskScore(id: string): number {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) % 997;
  return h % 65;
}

/** The charge's `outcome` for one of Radar's risk-level test cards. */
function riskOutcome(risk: RiskEvaluation, failed: boolean): StripeJson {
  const base = { advice_code: null, network_advice_code: null, network_decline_code: null, risk_level: risk.level, risk_score: risk.score };
  if (failed && risk.blocked) {
    return {
      ...base,
      network_status: 'not_sent_to_network',
      reason: 'highest_risk_level',
      seller_message: 'Stripe blocked this payment as too risky.',
      type: 'blocked',
    };
  }
  if (failed) {
    return {
      ...base,
      network_status: 'declined_by_network',
      reason: null,
      seller_message: 'The bank did not return any further details with this decline.',
      type: 'issuer_declined',
    };
  }
  return {
    ...base,
    network_status: 'approved_by_network',
    reason: 'elevated_risk_level',
    seller_message: 'Stripe evaluated this payment as having elevated risk, and placed it in your manual review queue.',
    type: 'manual_review',
  };
}

export function chargePaymentMethod(ctx: TwinContext, input: ChargeInput): { charge: Charge; failure?: ChargeFailure } {
  const pm = typeof input.paymentMethod === 'string' ? find(ctx, 'payment_method', input.paymentMethod) : input.paymentMethod;
  if (!pm) throw new Error(`payment method ${String(input.paymentMethod)} vanished`);
  const card = (pm.card ?? {}) as StripeJson;
  const decline = declineFor(card.last4);
  const risk = riskFor(card.last4);
  const capture = input.capture ?? true;
  const id = newId(ctx, 'charge');
  const failed = decline !== undefined;
  const charge: Charge = {
    id,
    object: 'charge',
    amount: input.amount,
    amount_captured: !failed && capture ? input.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: input.applicationFeeAmount ?? null,
    balance_transaction: null,
    billing_details: pm.billing_details ?? null,
    calculated_statement_descriptor: input.statementDescriptor ?? 'STRIPE TWIN',
    captured: !failed && capture,
    created: ctx.clock.nowSeconds(),
    currency: input.currency,
    customer: input.customer,
    description: input.description ?? null,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: failed ? decline.code : null,
    failure_message: failed ? decline.message : null,
    fraud_details: {},
    invoice: input.invoice ?? null,
    livemode: false,
    metadata: input.metadata ?? {},
    on_behalf_of: input.onBehalfOf ?? null,
    outcome: risk
      ? riskOutcome(risk, failed)
      : failed
        ? {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'declined_by_network',
            reason: decline.decline_code,
            risk_level: 'normal',
            risk_score: riskScore(id),
            seller_message: 'The bank did not return any further details with this decline.',
            type: 'issuer_declined',
          }
        : {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            risk_score: riskScore(id),
            seller_message: 'Payment complete.',
            type: 'authorized',
          },
    paid: !failed,
    payment_intent: input.paymentIntent ?? null,
    payment_method: pm.id,
    payment_method_details: {
      card: {
        amount_authorized: failed ? null : input.amount,
        authorization_code: failed ? null : String(100000 + riskScore(id + 'auth') * 1000),
        brand: card.brand ?? null,
        checks: card.checks ?? null,
        country: card.country ?? null,
        exp_month: card.exp_month ?? null,
        exp_year: card.exp_year ?? null,
        extended_authorization: { status: 'disabled' },
        fingerprint: card.fingerprint ?? null,
        funding: card.funding ?? null,
        incremental_authorization: { status: 'unavailable' },
        installments: null,
        last4: card.last4 ?? null,
        mandate: null,
        multicapture: { status: 'unavailable' },
        network: card.brand ?? null,
        network_token: { used: false },
        overcapture: { maximum_amount_capturable: input.amount, status: 'unavailable' },
        regulated_status: 'unregulated',
        three_d_secure: null,
        wallet: null,
      },
      type: 'card',
    },
    radar_options: {},
    receipt_email: input.receiptEmail ?? null,
    receipt_number: null,
    // The twin's own receipt page (routes/hosted-receipt.ts), where Stripe's is pay.stripe.com.
    receipt_url: failed ? null : `${ctx.baseUrl}/receipts/payment/${id}`,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: input.statementDescriptor ?? null,
    statement_descriptor_suffix: null,
    status: failed ? 'failed' : 'succeeded',
    transfer_data: input.transferData ? { amount: input.transferData.amount ?? null, destination: input.transferData.destination } : null,
    transfer_group: input.transferGroup ?? (input.transferData && input.paymentIntent ? `group_${input.paymentIntent}` : null),
  };
  // Captured funds enter the balance at once (pending for two days, less Stripe's fee).
  if (charge.captured) {
    charge.balance_transaction = recordChargeFunds(ctx, charge, charge.amount_captured).id;
    settleConnect(ctx, charge);
  }
  // Radar's default rule puts an elevated-risk payment in the review queue.
  if (risk && !failed) charge.review = openReview(ctx, charge);
  save(ctx, 'charge', charge);
  emitEvent(ctx, failed ? 'charge.failed' : 'charge.succeeded', charge);
  disputeIfTestCard(ctx, charge);
  return failed ? { charge, failure: { code: decline.code, decline_code: decline.decline_code, message: decline.message } } : { charge };
}
