// Billing figures, side by side in one run (loopback only; build first: `npm run build`):
//   - GET /organizations/current/billing, p50 of 200: no payment processor vs the house Stripe twin
//     (a paygo organization with usage: the draft invoice and the credit are read live);
//   - meter events to the house twin one at a time vs 8 in flight (what a metering pass does), 200 each;
//   - one metering pass reporting ~500 twin-hours (how many meter events carry them, how long).
// The machine is shared: read the ratios, not the absolute figures.
//   node --import=tsx scripts/bench/billing.ts [requests]

import PQueue from 'p-queue';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const REQUESTS = Math.min(2000, Math.max(10, Number(process.argv[2] ?? 200)));

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out: ${what}`);
}

async function summaryTimings(call: (m: string, p: string) => Promise<any>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await call('GET', '/organizations/current/billing');
    out.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`summary answered ${res.status}`);
  }
  return out;
}

const none = await startBenchControlPlane({ paymentProcessor: 'none', defaultPlan: 'free' });
const house = await startBenchControlPlane({ paymentProcessor: 'house', defaultPlan: 'free', usageIntervalSeconds: 3600 });
try {
  await until('billing ready', async () => (await house.call('GET', '/organizations/current/billing')).body.ready);
  const checkout = await house.call('POST', '/organizations/current/billing/checkout');
  const form = new URLSearchParams({ card_number: '4242424242424242', card_expiry: '12 / 34', card_cvc: '123' });
  const paid = await fetch(checkout.body.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  if (paid.status !== 303) throw new Error(`hosted page answered ${paid.status}`);
  const upgraded = await house.call('POST', '/organizations/current/billing/upgrade', { checkout_session: checkout.body.checkout_session });
  if (upgraded.status !== 200) throw new Error(`upgrade answered ${upgraded.status}`);
  const env = await house.call('POST', '/environments', { name: 'bench', twins: [{ twin: 'stripe' }, { twin: 'github' }, { twin: 'slack' }] });
  await until('environment ready', async () => (await house.call('GET', `/environments/${env.body.id}`)).body.status === 'ready');

  // ~500 twin-hours: 3 twins running for 166 hours (the billing clock and the house twin move on).
  const billing = house.cp.services.billing;
  const start0 = Date.now();
  billing.now = () => start0 + 166 * 3600_000 + (Date.now() - start0);
  await billing.house!.advance(new Date(billing.now()));
  const t0 = performance.now();
  await billing.meterOnce();
  const meterMs = performance.now() - t0;
  const orgId = billing.store.subscribedAccounts()[0]!.organization_id;
  const reported = billing.store.reports(orgId).filter((r) => r.state === 'reported').length;
  const events = billing.store.batches(orgId).length;

  const account = billing.store.account(orgId)!;
  const event = (id: string) => ({
    identifier: id,
    eventName: 'twins_twin_hours_stripe',
    customerId: account.customer_id!,
    value: 1,
    timestamp: Math.floor(billing.now() / 1000),
  });
  let t1 = performance.now();
  for (let i = 0; i < 200; i++) await billing.processor!.reportUsage(event(`bench-seq-${i}`));
  const sequentialMs = (performance.now() - t1) / 200;
  const queue = new PQueue({ concurrency: 8 });
  t1 = performance.now();
  await Promise.all(Array.from({ length: 200 }, (_, i) => queue.add(() => billing.processor!.reportUsage(event(`bench-par-${i}`)))));
  const concurrentMs = (performance.now() - t1) / 200;

  await summaryTimings(none.call);
  await summaryTimings(house.call);
  const withoutProcessor = percentile(await summaryTimings(none.call), 50);
  const withHouse = percentile(await summaryTimings(house.call), 50);
  const lines = (await house.call('GET', '/organizations/current/billing')).body.invoice.line_items.length;
  console.log(
    JSON.stringify({
      bench: 'billing',
      summary_p50_no_processor: fmt(withoutProcessor),
      summary_p50_house_stripe: fmt(withHouse),
      summary_ratio: Number((withHouse / withoutProcessor).toFixed(2)),
      draft_invoice_lines: lines,
      metering_twin_hours: reported,
      metering_meter_events: events,
      metering_pass: fmt(meterMs),
      meter_event_one_at_a_time: fmt(sequentialMs),
      meter_event_8_in_flight: fmt(concurrentMs),
      meter_event_speedup: Number((sequentialMs / concurrentMs).toFixed(2)),
    }),
  );
} finally {
  await none.stop();
  await house.stop();
}
