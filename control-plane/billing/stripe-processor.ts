// The payment processor over the official `stripe` SDK. The same code serves the house Stripe twin
// (a client pointed at the twin the control plane runs) and Stripe itself (STRIPE_SECRET_KEY):
// only the client and the webhook signing secret differ.

import type Stripe from 'stripe';
import {
  ProcessorRejected,
  ProcessorUnavailable,
  WebhookRejected,
  redactSecrets,
  type CheckoutOutcome,
  type DraftInvoice,
  type MeterEvent,
  type PaymentFailure,
  type PaymentProcessor,
  type ProcessorEvent,
  type SubscriptionState,
} from './processor.js';
import { UNIT_PRICE_CENTS, meterEventName, priceLookupKey, quantityKey, type BillableQuantity, type UsageKind } from './prices.js';

export interface StripeProcessorOptions {
  name: 'house' | 'stripe';
  /** A ready client (the house twin waits for its process here). */
  client(): Promise<Stripe>;
  /** The webhook endpoint's signing secret, when known. */
  webhookSecret(): string | undefined;
}

/** The customer's metadata key naming the organization it bills. */
export const ORGANIZATION_METADATA_KEY = 'twins_organization_id';

interface PriceFacts {
  id: string;
  quantity: BillableQuantity | undefined;
  unitCents: number;
}

/** Stripe's error kinds that mean "could not use the processor at all". */
const UNAVAILABLE_TYPES = new Set(['StripeConnectionError', 'StripeAPIError', 'StripeAuthenticationError', 'StripePermissionError', 'StripeRateLimitError']);

/** Any failure of an SDK call as one of the two processor errors, secrets masked. */
export function translateError(e: unknown): ProcessorUnavailable | ProcessorRejected {
  if (e instanceof ProcessorUnavailable || e instanceof ProcessorRejected) return e;
  const err = e as Partial<Stripe.errors.StripeError> & Error;
  const message = redactSecrets(err?.message ?? String(e));
  if (typeof err?.type === 'string' && err.type.startsWith('Stripe')) {
    if (UNAVAILABLE_TYPES.has(err.type) || (err.statusCode ?? 0) >= 500) return new ProcessorUnavailable(message);
    return new ProcessorRejected(message, err.code, err.statusCode);
  }
  // The SDK could not put an argument into a URL (a lone surrogate): the request, not the processor.
  if (e instanceof URIError) return new ProcessorRejected(message, 'invalid_request', 400);
  return new ProcessorUnavailable(message);
}

function isMissing(e: unknown): boolean {
  return e instanceof ProcessorRejected && (e.code === 'resource_missing' || e.status === 404);
}

function priceIdOf(price: string | Stripe.Price | null | undefined): string | null {
  if (!price) return null;
  return typeof price === 'string' ? price : price.id;
}

export class StripeProcessor implements PaymentProcessor {
  readonly name: 'house' | 'stripe';
  private readonly prices = new Map<string, PriceFacts>();
  private readonly pricesByKey = new Map<string, Promise<string>>();

  constructor(private readonly options: StripeProcessorOptions) {
    this.name = options.name;
  }

  /** Run one SDK call; every failure comes out as ProcessorUnavailable or ProcessorRejected. */
  private async call<T>(fn: (stripe: Stripe) => Promise<T>): Promise<T> {
    let stripe: Stripe;
    try {
      stripe = await this.options.client();
    } catch (e) {
      throw new ProcessorUnavailable(redactSecrets(`The payment processor is not available: ${(e as Error).message}`));
    }
    try {
      return await fn(stripe);
    } catch (e) {
      throw translateError(e);
    }
  }

  async ensureCustomer(org: { id: string; name: string }): Promise<string> {
    return this.call(async (stripe) => {
      // Search first: a customer created by an earlier attempt whose answer was lost is found again.
      const found = await stripe.customers.search({ query: `metadata['${ORGANIZATION_METADATA_KEY}']:'${org.id}'`, limit: 1 }).catch(() => undefined);
      const existing = found?.data[0];
      if (existing) return existing.id;
      const created = await stripe.customers.create(
        { name: org.name, metadata: { [ORGANIZATION_METADATA_KEY]: org.id } },
        { idempotencyKey: `twins-customer-${org.id}` },
      );
      return created.id;
    });
  }

  createCheckout(input: { customerId: string; organizationId: string; successUrl: string; cancelUrl: string }) {
    return this.call(async (stripe) => {
      const session = await stripe.checkout.sessions.create({
        mode: 'setup',
        customer: input.customerId,
        // The currency picks the card (and other) payment methods the account offers.
        currency: 'usd',
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        client_reference_id: input.organizationId,
        metadata: { [ORGANIZATION_METADATA_KEY]: input.organizationId },
        setup_intent_data: { metadata: { [ORGANIZATION_METADATA_KEY]: input.organizationId } },
      });
      if (!session.url) throw new ProcessorRejected('The processor returned a checkout session without a page to pay on.', undefined, undefined);
      return { id: session.id, url: session.url };
    });
  }

  async checkoutOutcome(sessionId: string): Promise<CheckoutOutcome | undefined> {
    try {
      return await this.call(async (stripe) => {
        const s = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent'] });
        const intent = s.setup_intent;
        const pm = intent && typeof intent !== 'string' ? intent.payment_method : null;
        return {
          id: s.id,
          status: (s.status ?? 'open') as CheckoutOutcome['status'],
          customerId: typeof s.customer === 'string' ? s.customer : (s.customer?.id ?? null),
          paymentMethodId: typeof pm === 'string' ? pm : (pm?.id ?? null),
        };
      });
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void> {
    return this.call(async (stripe) => {
      await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
    });
  }

  priceFor(quantity: BillableQuantity, displayName: string): Promise<string> {
    const key = quantityKey(quantity);
    let pending = this.pricesByKey.get(key);
    if (!pending) {
      pending = this.findOrCreatePrice(quantity, displayName);
      this.pricesByKey.set(key, pending);
      // A failed attempt is forgotten so the next caller tries again.
      pending.catch(() => this.pricesByKey.delete(key));
    }
    return pending;
  }

  private findOrCreatePrice(quantity: BillableQuantity, displayName: string): Promise<string> {
    return this.call(async (stripe) => {
      const lookupKey = priceLookupKey(quantity);
      const listed = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
      let price = listed.data[0];
      if (!price) {
        const meterId = await this.meterFor(stripe, quantity, displayName);
        price = await stripe.prices.create(
          {
            currency: 'usd',
            unit_amount: UNIT_PRICE_CENTS[quantity.kind],
            recurring: { interval: 'month', usage_type: 'metered', meter: meterId },
            lookup_key: lookupKey,
            product_data: { name: displayName },
            metadata: { twins_kind: quantity.kind, twins_twin: quantity.twin },
          },
          { idempotencyKey: `twins-price-${lookupKey}` },
        );
      }
      this.remember(price);
      return price.id;
    });
  }

  private async meterFor(stripe: Stripe, quantity: BillableQuantity, displayName: string): Promise<string> {
    const eventName = meterEventName(quantity);
    for await (const meter of stripe.billing.meters.list({ status: 'active', limit: 100 })) {
      if (meter.event_name === eventName) return meter.id;
    }
    const meter = await stripe.billing.meters.create(
      {
        display_name: displayName,
        event_name: eventName,
        default_aggregation: { formula: 'sum' },
        customer_mapping: { event_payload_key: 'stripe_customer_id', type: 'by_id' },
        value_settings: { event_payload_key: 'value' },
      },
      { idempotencyKey: `twins-meter-${eventName}` },
    );
    return meter.id;
  }

  private remember(price: Stripe.Price): PriceFacts {
    const kind = price.metadata?.twins_kind as UsageKind | undefined;
    const twin = price.metadata?.twins_twin;
    const facts: PriceFacts = {
      id: price.id,
      quantity: kind && twin !== undefined ? { kind, twin } : undefined,
      unitCents: price.unit_amount ?? Math.round(Number(price.unit_amount_decimal ?? 0)),
    };
    this.prices.set(price.id, facts);
    return facts;
  }

  private async priceFacts(stripe: Stripe, id: string): Promise<PriceFacts> {
    return this.prices.get(id) ?? this.remember(await stripe.prices.retrieve(id));
  }

  createSubscription(input: { customerId: string; organizationId: string; priceIds: string[]; idempotencyKey: string }) {
    return this.call(async (stripe) => {
      // No default_payment_method of its own: renewals charge the customer's default card, the one
      // the latest checkout set, so a new card takes over without touching the subscription.
      const sub = await stripe.subscriptions.create(
        {
          customer: input.customerId,
          items: input.priceIds.map((price) => ({ price })),
          metadata: { [ORGANIZATION_METADATA_KEY]: input.organizationId },
          expand: ['latest_invoice'],
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return this.stateOf(stripe, sub);
    });
  }

  async subscription(id: string): Promise<SubscriptionState | undefined> {
    try {
      return await this.call(async (stripe) => this.stateOf(stripe, await stripe.subscriptions.retrieve(id, { expand: ['latest_invoice'] })));
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  private async stateOf(stripe: Stripe, sub: Stripe.Subscription): Promise<SubscriptionState> {
    const items = sub.items.data;
    const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
    const invoice = typeof sub.latest_invoice === 'object' ? sub.latest_invoice : null;
    let failure: PaymentFailure | null = null;
    if (invoice && invoice.status === 'open' && (invoice.attempt_count ?? 0) > 0) {
      failure = {
        invoiceId: invoice.id!,
        message: await this.failureMessage(stripe, invoice),
        nextAttempt: invoice.next_payment_attempt ?? null,
        attempts: invoice.attempt_count ?? 0,
      };
    }
    return {
      id: sub.id,
      status: sub.status,
      periodStart: items[0]?.current_period_start ?? legacy.current_period_start ?? 0,
      periodEnd: items[0]?.current_period_end ?? legacy.current_period_end ?? 0,
      priceIds: items.map((i) => i.price.id),
      failure,
    };
  }

  /**
   * The decline's own sentence from the invoice's PaymentIntent, else a plain one. Since
   * 2025-03-31.basil an invoice no longer names its PaymentIntent; read in the version before it, it does.
   */
  private async failureMessage(stripe: Stripe, invoice: Stripe.Invoice): Promise<string> {
    const before = await stripe.invoices.retrieve(invoice.id!, {}, { apiVersion: '2025-02-24.acacia' }).catch(() => undefined);
    const intentId = (before as unknown as { payment_intent?: string | null } | undefined)?.payment_intent;
    if (typeof intentId === 'string') {
      const intent = await stripe.paymentIntents.retrieve(intentId).catch(() => undefined);
      const message = intent?.last_payment_error?.message;
      if (message) return message;
    }
    return 'The card on file was declined.';
  }

  addSubscriptionItem(subscriptionId: string, priceId: string): Promise<void> {
    return this.call(async (stripe) => {
      await stripe.subscriptionItems.create({ subscription: subscriptionId, price: priceId }, { idempotencyKey: `twins-item-${subscriptionId}-${priceId}` });
    });
  }

  payOpenInvoices(customerId: string, paymentMethodId: string): Promise<void> {
    return this.call(async (stripe) => {
      for await (const invoice of stripe.invoices.list({ customer: customerId, status: 'open', limit: 100 })) {
        if (invoice.collection_method !== 'charge_automatically') continue;
        try {
          await stripe.invoices.pay(invoice.id!, { payment_method: paymentMethodId, off_session: true });
        } catch (e) {
          // A decline leaves the invoice open (and the account past due); anything else is a failure.
          const err = translateError(e);
          if (!(err instanceof ProcessorRejected)) throw err;
        }
      }
    });
  }

  async reportUsage(event: MeterEvent): Promise<'reported' | { rejected: string }> {
    try {
      return await this.call(async (stripe) => {
        await stripe.billing.meterEvents.create(
          {
            event_name: event.eventName,
            identifier: event.identifier,
            timestamp: event.timestamp,
            payload: { stripe_customer_id: event.customerId, value: String(event.value) },
          },
          { idempotencyKey: event.identifier },
        );
        return 'reported' as const;
      });
    } catch (e) {
      if (e instanceof ProcessorRejected) {
        // Reported by an attempt whose answer was lost (after the idempotency key expired).
        if (e.code === 'duplicate_meter_event') return 'reported';
        return { rejected: e.message };
      }
      throw e;
    }
  }

  draftInvoice(customerId: string, subscriptionId: string): Promise<DraftInvoice> {
    return this.call(async (stripe) => {
      const preview = await stripe.invoices.createPreview({ customer: customerId, subscription: subscriptionId });
      const lines: Stripe.InvoiceLineItem[] = [...preview.lines.data];
      if (preview.lines.has_more && preview.id) {
        // The answer embeds the first lines only; read the rest where the processor lists them.
        const all: Stripe.InvoiceLineItem[] = [];
        try {
          for await (const line of stripe.invoices.listLineItems(preview.id, { limit: 100 })) all.push(line);
          lines.splice(0, lines.length, ...all);
        } catch {
          // Not listable (a preview without a stored invoice): keep the embedded lines.
        }
      }
      const out: DraftInvoice = { periodStart: preview.period_start, periodEnd: preview.period_end, totalCents: preview.total, lines: [] };
      for (const line of lines) {
        const legacy = line as unknown as { price?: Stripe.Price | string | null };
        const priceId = priceIdOf(line.pricing?.price_details?.price ?? null) ?? priceIdOf(legacy.price ?? null);
        const facts = priceId ? await this.priceFacts(stripe, priceId) : undefined;
        out.lines.push({
          priceId,
          description: line.description ?? '',
          amountCents: line.amount,
          quantity: line.quantity ?? 0,
          unitPriceCents: facts?.unitCents ?? 0,
          twin: facts?.quantity?.twin ?? '',
        });
      }
      return out;
    });
  }

  creditCents(customerId: string): Promise<number> {
    return this.call(async (stripe) => {
      const customer = await stripe.customers.retrieve(customerId);
      if ((customer as Stripe.DeletedCustomer).deleted) return 0;
      // A negative balance is credit the customer can spend; a positive one is owed.
      return Math.max(0, -((customer as Stripe.Customer).balance ?? 0));
    });
  }

  async verifyWebhook(rawBody: Buffer, signature: string | undefined): Promise<ProcessorEvent> {
    const secret = this.options.webhookSecret();
    if (!secret) throw new WebhookRejected('No webhook signing secret is configured (STRIPE_WEBHOOK_SECRET).');
    if (!signature) throw new WebhookRejected('The Stripe-Signature header is missing.');
    const { default: Stripe } = await import('stripe');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret);
    } catch (e) {
      throw new WebhookRejected(redactSecrets(`The webhook signature does not verify: ${(e as Error).message}`));
    }
    const object = (event.data?.object ?? {}) as {
      object?: string;
      id?: string;
      customer?: unknown;
      subscription?: unknown;
      parent?: { subscription_details?: { subscription?: unknown } | null } | null;
    };
    const idOf = (v: unknown): string | null =>
      typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null;
    const subscriptionId =
      object.object === 'subscription' ? (object.id ?? null) : (idOf(object.subscription) ?? idOf(object.parent?.subscription_details?.subscription));
    return { id: event.id, type: event.type, customerId: idOf(object.customer), subscriptionId };
  }
}
