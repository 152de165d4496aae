// The payment processor as billing sees it: one interface, one implementation over the official
// `stripe` SDK (stripe-processor.ts) that serves both the house Stripe twin the control plane runs
// for itself and Stripe proper. Failures come back as two kinds: the processor could not be used
// at all (unreachable, 5xx, refused credentials → the API answers 502), or it refused one request
// about one object (unknown id, declined card → the caller decides, usually 409).

import type { BillableQuantity } from './prices.js';

/** The processor could not be reached or used; nothing was decided. */
export class ProcessorUnavailable extends Error {
  override name = 'ProcessorUnavailable';
}

/** The processor answered and refused this request (`code` as the processor names it). */
export class ProcessorRejected extends Error {
  override name = 'ProcessorRejected';
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** A webhook whose signature does not verify (or cannot: no signing secret). */
export class WebhookRejected extends Error {
  override name = 'WebhookRejected';
}

export interface CheckoutSession {
  id: string;
  /** Where the admin enters a card (the processor's hosted page). */
  url: string;
}

export interface CheckoutOutcome {
  id: string;
  status: 'open' | 'complete' | 'expired';
  customerId: string | null;
  /** The card the checkout collected (set once it is complete). */
  paymentMethodId: string | null;
}

export interface PaymentFailure {
  invoiceId: string;
  /** The processor's sentence (`Your card was declined.`). */
  message: string;
  /** Unix seconds of the next automatic retry; null when no retry is left. */
  nextAttempt: number | null;
  attempts: number;
}

export interface SubscriptionState {
  id: string;
  /** The processor's status: active, past_due, unpaid, canceled, incomplete… */
  status: string;
  /** Unix seconds. */
  periodStart: number;
  periodEnd: number;
  /** Prices the subscription bills. */
  priceIds: string[];
  /** The latest invoice's failed collection, if its payment failed and it is still open. */
  failure: PaymentFailure | null;
}

export interface DraftInvoiceLine {
  priceId: string | null;
  description: string;
  amountCents: number;
  quantity: number;
  unitPriceCents: number;
  /** The twin slug the line's price bills for ('' for a price billing did not create). */
  twin: string;
}

export interface DraftInvoice {
  /** Unix seconds. */
  periodStart: number;
  periodEnd: number;
  totalCents: number;
  lines: DraftInvoiceLine[];
}

export interface MeterEvent {
  /** Unique per unit of usage; also the request's idempotency key. */
  identifier: string;
  eventName: string;
  customerId: string;
  value: number;
  /** Unix seconds the usage belongs to. */
  timestamp: number;
}

/** What a verified webhook tells billing: which customer and subscription changed. */
export interface ProcessorEvent {
  id: string;
  type: string;
  customerId: string | null;
  subscriptionId: string | null;
}

export interface PaymentProcessor {
  /** `house` (the control plane's own Stripe twin) or `stripe`. */
  readonly name: 'house' | 'stripe';
  /** The customer of an organization: found by the organization id it carries, else created. */
  ensureCustomer(org: { id: string; name: string }): Promise<string>;
  /** A checkout that collects a card for later charges (setup mode). */
  createCheckout(input: { customerId: string; organizationId: string; successUrl: string; cancelUrl: string }): Promise<CheckoutSession>;
  /** The session's outcome; undefined when the processor does not know the id. */
  checkoutOutcome(sessionId: string): Promise<CheckoutOutcome | undefined>;
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;
  /** The metered price of a quantity, created (with its meter) the first time it is needed. */
  priceFor(quantity: BillableQuantity, displayName: string): Promise<string>;
  createSubscription(input: { customerId: string; organizationId: string; priceIds: string[]; idempotencyKey: string }): Promise<SubscriptionState>;
  /** Undefined when the processor does not know the id. */
  subscription(id: string): Promise<SubscriptionState | undefined>;
  addSubscriptionItem(subscriptionId: string, priceId: string): Promise<void>;
  /** Try every open invoice of the customer again with this card (after the card changed). */
  payOpenInvoices(customerId: string, paymentMethodId: string): Promise<void>;
  /** `reported` (also when this identifier was already reported) or the processor's refusal. */
  reportUsage(event: MeterEvent): Promise<'reported' | { rejected: string }>;
  /** The invoice the current period will produce, with the usage reported so far. */
  draftInvoice(customerId: string, subscriptionId: string): Promise<DraftInvoice>;
  /** Spendable credit on the customer's balance, in cents (0 when it owes or has none). */
  creditCents(customerId: string): Promise<number>;
  /** Verify a webhook's signature and read it; throws WebhookRejected. */
  verifyWebhook(rawBody: Buffer, signature: string | undefined): Promise<ProcessorEvent>;
}

const SECRET_PATTERN = /\b((?:sk|rk|pk)_(?:test|live)_|whsec_)[A-Za-z0-9]{4,}/g;

/** Mask anything shaped like a processor key or signing secret (for logs and answers). */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, (_m, prefix: string) => `${prefix}…`);
}
