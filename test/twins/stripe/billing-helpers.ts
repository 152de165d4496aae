// Shared set-up for the billing contract tests: a running Stripe twin, the official SDK pointed at
// it, and small helpers to build a catalog and a customer with a card.

import Stripe from 'stripe';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

export interface BillingTwin {
  twin: RunningTwin;
  stripe: Stripe;
  /** Record fields through the twin's admin API (what the control plane's records PUT does). */
  putRecord(resource: string, id: string, fields: unknown): Promise<void>;
  getRecord<T = any>(resource: string, id: string): Promise<T>;
  close(): Promise<void>;
}

/** 2026-01-31 12:00:00 UTC: a month-end anchor exercises day-of-month clamping. */
export const START = new Date('2026-01-15T12:00:00Z');

export async function startBillingTwin(clockStart: Date = START): Promise<BillingTwin> {
  const twin = await startTwin('stripe', { clockStart });
  const url = new URL(twin.url);
  const stripe = new Stripe(twin.apiKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    maxNetworkRetries: 0,
  });
  return {
    twin,
    stripe,
    async putRecord(resource, id, fields) {
      const res = await fetch(`${twin.url}/_twin/records/${resource}/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fields }),
      });
      if (res.status !== 200) throw new Error(`record PUT failed: ${res.status} ${await res.text()}`);
    },
    async getRecord(resource, id) {
      const res = await fetch(`${twin.url}/_twin/records/${resource}/${id}`);
      if (res.status !== 200) throw new Error(`record GET failed: ${res.status}`);
      return ((await res.json()) as { body: any }).body;
    },
    close: () => twin.close(),
  };
}

export async function monthlyPrice(stripe: Stripe, unitAmount = 2000, name = 'Pro plan'): Promise<Stripe.Price> {
  const product = await stripe.products.create({ name });
  return stripe.prices.create({ product: product.id, unit_amount: unitAmount, currency: 'usd', recurring: { interval: 'month' } });
}

/** A customer whose default invoice payment method is the given test payment method. */
export async function customerWithCard(stripe: Stripe, pm = 'pm_card_visa'): Promise<{ customer: Stripe.Customer; pm: Stripe.PaymentMethod }> {
  const customer = await stripe.customers.create({ email: 'jenny@example.com', name: 'Jenny Rosen' });
  const attached = await stripe.paymentMethods.attach(pm, { customer: customer.id });
  await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: attached.id } });
  return { customer, pm: attached };
}

export const DAY = 86_400;
