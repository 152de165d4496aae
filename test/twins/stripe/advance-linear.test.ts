// A long advance stays linear (issue 33): the work of one daily billing cycle — record and meta
// rows the store decodes and writes, events made — is the same late in an advance as early on. A
// pass that re-read every invoice ever made (what ten years of a daily subscription once did)
// grows with the history and fails here. Counts from the store's own counter, never a timing
// (scripts/bench/advance.ts measures the CPU-seconds).

import t from 'tap';
import { DAY, START, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe, twin } = bt;
const store = twin.server.store;

async function advanceTo(unixSeconds: number): Promise<void> {
  const res = await fetch(`${twin.url}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: new Date(unixSeconds * 1000).toISOString(), wait_ms: 600_000 }),
  });
  t.equal(res.status, 200, 'the advance finished');
}

interface Window {
  invoices: number;
  events: number;
  rowsRead: number;
  rowsWritten: number;
}

/** Advance to `until` and report what the store did per invoice made meanwhile. */
async function window(until: number): Promise<Window> {
  const invoices0 = store.count('invoice');
  const events0 = store.count('event');
  const { rowsRead, rowsWritten } = store.work;
  await advanceTo(until);
  const invoices = store.count('invoice') - invoices0;
  return {
    invoices,
    events: (store.count('event') - events0) / invoices,
    rowsRead: (store.work.rowsRead - rowsRead) / invoices,
    rowsWritten: (store.work.rowsWritten - rowsWritten) / invoices,
  };
}

t.test('a daily subscription costs the same per cycle after 20 days as after 80', async (t) => {
  const product = await stripe.products.create({ name: 'Daily' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 100, currency: 'usd', recurring: { interval: 'day' } });
  const customer = await stripe.customers.create({ email: 'daily@example.com' });
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
  await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
  const start = Math.floor(START.getTime() / 1000);

  // A warm-up window, then two of the same length far apart in the history.
  await window(start + 10 * DAY);
  const early = await window(start + 30 * DAY);
  await window(start + 70 * DAY);
  const late = await window(start + 90 * DAY);
  t.equal(early.invoices, 20, 'one invoice a day early on');
  t.equal(late.invoices, 20, 'and late');
  t.ok(early.rowsRead > 0 && early.rowsWritten > 0 && early.events > 0, `a cycle does work (${JSON.stringify(early)})`);
  t.equal(late.events, early.events, 'the same events per cycle');
  // Rows may differ by one or two per cycle (where the advance's slices fall: each writes the
  // clock); work bound to the history would add rows per cycle for every cycle before.
  t.ok(
    late.rowsWritten <= early.rowsWritten * 1.1,
    `rows written per cycle stay flat: ${early.rowsWritten.toFixed(1)} early, ${late.rowsWritten.toFixed(1)} late`,
  );
  t.ok(late.rowsRead <= early.rowsRead * 1.1, `rows read per cycle stay flat: ${early.rowsRead.toFixed(1)} early, ${late.rowsRead.toFixed(1)} late`);
});
