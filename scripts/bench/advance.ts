// A daily subscription advanced 1, 2, 5 and 10 years in one advance each (a fresh Stripe twin per
// run): wall time, invoices made, and the cost per invoice — linear when it stays flat
// (target: 10 years ≤ 10 s). On a shared machine wall time follows the load, so the process's CPU
// time for the advance (twin and probe, both in this process) is reported beside it. The advance goes through the admin API as the control plane calls it
// (a job followed to its end), and a probe measures how long provider requests wait for their
// answers meanwhile (answered between the advance's slices). CPU-seconds of the process are read
// from /proc (utime + stime of /proc/self/stat), steadier than wall time on a loaded machine.
//   node --import=tsx scripts/bench/advance.ts [years=1,2,5,10]
// TWINS_ROOT=<another checkout> runs the same advance on that checkout's code (a before/after pair
// in one run: run it once with, once without). Events and invoices made must be equal in both.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import Stripe from 'stripe';
import type * as Registry from '../../twin-runtime/registry.js';
import type * as Server from '../../twin-runtime/server.js';
import type * as Admin from '../../control-plane/orchestration/twin-admin.js';

const root = process.env.TWINS_ROOT ?? new URL('../..', import.meta.url).pathname;
const { loadTwin } = (await import(join(root, 'twin-runtime/registry.js'))) as typeof Registry;
const { TwinServer } = (await import(join(root, 'twin-runtime/server.js'))) as typeof Server;
const { TwinAdminClient } = (await import(join(root, 'control-plane/orchestration/twin-admin.js'))) as typeof Admin;

const YEARS = (process.argv[2] ?? '1,2,5,10').split(',').map(Number);
const TICKS_PER_SECOND = 100;

/** CPU milliseconds of this process (user + system) from /proc/self/stat. */
function procCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the command's ')'.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
const start = new Date('2026-01-15T12:00:00Z');
const admin = new TwinAdminClient();

async function run(years: number) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-advance-'));
  const server = new TwinServer(await loadTwin('stripe'), { dataFile: join(dir, 'stripe.sqlite'), clockStart: start });
  const url = new URL(await server.listen(0, '127.0.0.1'));
  try {
    const stripe = new Stripe(server.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    const product = await stripe.products.create({ name: 'Daily' });
    const price = await stripe.prices.create({ product: product.id, unit_amount: 100, currency: 'usd', recurring: { interval: 'day' } });
    const customer = await stripe.customers.create({ email: 'daily@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
    const to = new Date(start);
    to.setUTCFullYear(to.getUTCFullYear() + years);
    // Provider requests during the advance: how long each waits for its answer, and how many were not 200.
    const waits: number[] = [];
    let refused = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t0 = performance.now();
        const res = await fetch(`${url.origin}/v1/customers/${customer.id}`, { headers: { authorization: `Bearer ${server.apiKey}` } });
        await res.arrayBuffer();
        if (res.status !== 200) refused++;
        waits.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // Rows the store decoded and wrote (a checkout without the counter reports none): steadier than CPU.
    const work = (server.store as { work?: { rowsRead: number; rowsWritten: number } }).work;
    const rows0 = work ? { ...work } : undefined;
    const t0 = performance.now();
    const cpu0 = procCpuMs();
    const out = await admin.advanceAndWait(url.origin, '', to);
    const ms = performance.now() - t0;
    const cpuMs = procCpuMs() - cpu0;
    probing = false;
    await probe;
    if (!out.ok) throw new Error(`advance failed: ${out.detail}`);
    const invoices = server.store.count('invoice');
    const events = server.store.count('event');
    waits.sort((a, b) => a - b);
    return {
      root,
      years,
      advance_ms: Math.round(ms),
      invoices,
      ms_per_invoice: +(ms / invoices).toFixed(3),
      cpu_ms: Math.round(cpuMs),
      cpu_ms_per_invoice: +(cpuMs / invoices).toFixed(3),
      events,
      rows_read_per_invoice: work && rows0 ? +((work.rowsRead - rows0.rowsRead) / invoices).toFixed(1) : null,
      rows_written_per_invoice: work && rows0 ? +((work.rowsWritten - rows0.rowsWritten) / invoices).toFixed(1) : null,
      load_average_1m: +loadavg()[0]!.toFixed(1),
      provider_requests_during: waits.length,
      provider_requests_not_200: refused,
      provider_wait_p99_ms: +(waits[Math.min(waits.length - 1, Math.ceil(waits.length * 0.99) - 1)] ?? 0).toFixed(1),
      provider_wait_max_ms: +(waits.at(-1) ?? 0).toFixed(1),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const y of YEARS) console.log(JSON.stringify(await run(y)));
