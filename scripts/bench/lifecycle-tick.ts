// What a living clock costs a twin at rest: its host runs what has fallen due about once a second
// (host.ts, LIFECYCLE_TICK_MS), a pass of the twin's lifecycle over its records. Per twin: the CPU
// time of one tick with the starting state only, and for Stripe with 100 active subscriptions
// (nothing due: what every tick of a busy account costs). CPU time of this process (user+system,
// steadier than wall time on a shared machine), median of rounds of TICKS ticks.
//   node --import=tsx scripts/bench/lifecycle-tick.ts [ticks=200] [rounds=5]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { loadTwin, TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

// No timer: the bench calls the tick itself.
process.env.TWIN_LIFECYCLE_TICK_MS = '0';
const TICKS = Math.max(10, Math.min(10_000, Number(process.argv[2] ?? 200)));
const ROUNDS = Math.max(1, Math.min(21, Number(process.argv[3] ?? 5)));

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function perTick(server: TwinServer): Promise<number> {
  for (let i = 0; i < 20; i++) await server.host.runDueEvents(); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = cpuMs();
    for (let i = 0; i < TICKS; i++) await server.host.runDueEvents();
    rounds.push(((cpuMs() - c0) / TICKS) * 1000);
  }
  return median(rounds);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-tick-'));
try {
  console.log(`lifecycle tick, CPU µs per tick (median of ${ROUNDS} rounds of ${TICKS}); at one tick a second, µs per tick = millionths of a core`);
  for (const slug of TWIN_SLUGS) {
    const twin = await loadTwin(slug);
    if (!twin.advance) {
      console.log(`${slug.padEnd(10)} no lifecycle: no tick`);
      continue;
    }
    const server = new TwinServer(twin, { dataFile: join(dir, `${slug}.sqlite`), clock: 'living' });
    console.log(`${slug.padEnd(10)} ${(await perTick(server)).toFixed(0).padStart(6)} µs  (starting state)`);
    await server.close();
  }

  const server = new TwinServer(await loadTwin('stripe'), { dataFile: join(dir, 'stripe-busy.sqlite'), clock: 'living' });
  const url = new URL(await server.listen(0, '127.0.0.1'));
  const stripe = new Stripe(server.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const product = await stripe.products.create({ name: 'Monthly' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } });
  for (let i = 0; i < 100; i++) {
    const customer = await stripe.customers.create({ email: `c${i}@example.com` });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
  }
  console.log(`${'stripe'.padEnd(10)} ${(await perTick(server)).toFixed(0).padStart(6)} µs  (100 active subscriptions, nothing due)`);
  await server.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
