// A year of monthly renewals for N subscriptions through one advance (the control plane's advance
// path: POST /_twin/advance), every fifth card declining from month 7 on. Prints the wall time of
// the advance and the lifecycle steps per second.
//   node --import=tsx scripts/bench/stripe-billing-advance.ts [subscriptions=200]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

const N = Math.min(5000, Math.max(1, Number(process.argv[2] ?? 200)));
const start = new Date('2026-01-15T12:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'bench-stripe-billing-'));
const server = new TwinServer(await loadTwin('stripe'), { dataFile: join(dir, 'stripe.sqlite'), clockStart: start });
const url = new URL(await server.listen(0, '127.0.0.1'));
const stripe = new Stripe(server.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http' });

async function advance(to: Date): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url.origin}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // Wait for the whole advance (the runtime answers 202 after 800 ms otherwise).
    body: JSON.stringify({ to: to.toISOString(), wait_ms: 3_600_000 }),
  });
  if (res.status !== 200) throw new Error(`advance answered ${res.status}`);
  return performance.now() - t0;
}

try {
  const product = await stripe.products.create({ name: 'Bench plan' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } });
  const setupStarted = performance.now();
  const cards: string[] = [];
  for (let i = 0; i < N; i++) {
    const customer = await stripe.customers.create({ email: `bench${i}@example.com` });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
    if (i % 5 === 0) cards.push(pm.id);
  }
  const setupMs = performance.now() - setupStarted;
  const half = new Date(start);
  half.setUTCMonth(half.getUTCMonth() + 6);
  const firstHalf = await advance(new Date(half.getTime() + 7200_000));
  for (const id of cards) {
    const rec = server.store.get<any>('payment_method', id)!;
    server.store.put('payment_method', id, { ...rec, card: { ...rec.card, last4: '0341' } });
  }
  const end = new Date(start);
  end.setUTCFullYear(end.getUTCFullYear() + 1);
  const secondHalf = await advance(end);
  const invoices = server.store.count('invoice');
  const events = server.store.count('event');
  console.log(
    JSON.stringify({
      subscriptions: N,
      setup_ms: Math.round(setupMs),
      advance_first_6_months_ms: Math.round(firstHalf),
      advance_last_6_months_ms: Math.round(secondHalf),
      invoices,
      events,
      invoices_per_second: Math.round(invoices / ((firstHalf + secondHalf) / 1000)),
    }),
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
