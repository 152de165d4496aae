// One environment advance across three twins whose lifecycle events interleave (issue 38, one
// clock): Stripe subscriptions renewing daily, Slack messages scheduled twice a day between the
// renewals, Twilio messages moving through their statuses, 30 days in one advance. Side by side in
// one run, on two environments in the same state (a fork): the environment advance, which runs
// the events in one time order (each step: a probe per twin moved, an advance, its deliveries'
// first attempts), and the three twins advanced one after the other straight through their admin
// API (what the environment advance did before). Reports wall time of each, their ratio, and the
// control plane's CPU for each (from /proc/self/stat; the twins are child processes).
//   node --import=tsx scripts/bench/environment-advance.ts [days=30] [subscriptions=20] [first=ordered|twin-by-twin]

import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { LogLevel, WebClient } from '@slack/web-api';
import { startBenchControlPlane } from './control-plane.js';

const DAYS = Math.max(1, Math.min(365, Number(process.argv[2] ?? 30)));
const SUBSCRIPTIONS = Math.max(1, Math.min(200, Number(process.argv[3] ?? 20)));
/** Which runs first: `ordered` or `twin-by-twin`. */
const FIRST = process.argv[4] === 'twin-by-twin' ? 'twin-by-twin' : 'ordered';
const START = Date.parse('2026-03-02T08:00:00.000Z');
const DAY = 86_400_000;

/** CPU milliseconds of this process (user + system) from /proc/self/stat. */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const bench = await startBenchControlPlane();
try {
  const created = await bench.call('POST', '/environments', {
    name: 'interleaved',
    clock: 'frozen',
    clock_start: new Date(START).toISOString(),
    twins: [{ twin: 'slack' }, { twin: 'stripe' }, { twin: 'twilio' }],
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const ready = async (id: string) => {
    for (let i = 0; i < 6000; i++) {
      const env = (await bench.call('GET', `/environments/${id}`)).body;
      if (env.status === 'ready') return env;
      if (env.status === 'failed') throw new Error(`environment failed: ${JSON.stringify(env)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('environment not ready');
  };
  const env = await ready(created.body.id);
  const twin = (e: any, slug: string) => e.twins.find((x: any) => x.twin_slug === slug);
  const credential = async (e: any, slug: string) => (await bench.call('POST', `/twins/${twin(e, slug).id}/credential`)).body;

  const stripeUrl = new URL(twin(env, 'stripe').url);
  const stripe = new Stripe((await credential(env, 'stripe')).api_key, { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http' });
  const price = await stripe.prices.create({ currency: 'usd', unit_amount: 500, recurring: { interval: 'day' }, product_data: { name: 'Daily' } });
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const customer = await stripe.customers.create({ name: `C${i}`, email: `c${i}@example.com` });
    // Invoiced rather than charged: renewals need no card.
    await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], collection_method: 'send_invoice', days_until_due: 30 });
  }
  const slack = new WebClient((await credential(env, 'slack')).api_key, {
    slackApiUrl: `${twin(env, 'slack').url}/api/`,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  const channel = (await slack.conversations.create({ name: 'bench' })).channel!.id!;
  for (let d = 0; d < DAYS * 2; d++) {
    await slack.chat.scheduleMessage({ channel, text: `at ${d}`, post_at: Math.floor((START + (d + 0.5) * (DAY / 2)) / 1000) });
  }
  const { api_key: authToken, account_sid: accountSid } = await credential(env, 'twilio');
  for (let i = 0; i < 10; i++) {
    await fetch(`${twin(env, 'twilio').url}/2010-04-01/Accounts/${accountSid}/Messages.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
      body: new URLSearchParams({ To: '+14155550100', From: '+15017122661', Body: `m${i}` }),
    });
  }

  const forked = await bench.call('POST', `/environments/${env.id}/fork`, { name: 'twin by twin' });
  if (forked.status !== 201) throw new Error(`fork: ${JSON.stringify(forked.body)}`);
  const other = await ready(forked.body.id);
  const to = new Date(START + DAYS * DAY);

  const { admin, store } = bench.cp.services.orchestration;
  // The environment advance, in one time order.
  const ordered = async () => {
    let out = await bench.call('POST', `/environments/${env.id}/advance`, { at: to.toISOString() });
    while (out.status === 202 || out.body?.status === 'running') {
      await new Promise((r) => setTimeout(r, 50));
      out = await bench.call('GET', `/environments/${env.id}/advances/${out.body.id}`);
      if (out.body.status === 'failed') throw new Error(out.body.failure);
    }
    if (out.status !== 200) throw new Error(JSON.stringify(out.body));
  };
  // The same state, each twin straight to `to` in turn.
  const twinByTwin = async () => {
    for (const t of store.twinsOf(other.id)) {
      const done = await admin.advanceAndWait(t.address!, t.admin_secret, to);
      if (!done.ok) throw new Error(done.detail);
    }
  };
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    const c0 = cpuMs();
    await fn();
    return { ms: performance.now() - t0, cpu: cpuMs() - c0 };
  };
  // Alternating which goes first (the second runs on a machine the first has warmed).
  const [a, b] = FIRST === 'ordered' ? [await timed(ordered), await timed(twinByTwin)] : (([y, x]) => [x, y])([await timed(twinByTwin), await timed(ordered)]);
  const orderedMs = a!.ms;
  const orderedCpu = a!.cpu;
  const directMs = b!.ms;
  const directCpu = b!.cpu;

  // Both did the same work: the same invoices.
  const stripeOf = async (e: any) => {
    const u = new URL(twin(e, 'stripe').url);
    return new Stripe((await credential(e, 'stripe')).api_key, { host: u.hostname, port: Number(u.port), protocol: 'http' });
  };
  const count = async (s: Stripe) => (await s.invoices.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).length;
  const invoicesOrdered = await count(stripe);
  const invoicesTwinByTwin = await count(await stripeOf(other));
  if (invoicesOrdered !== invoicesTwinByTwin) throw new Error(`different work: ${invoicesOrdered} vs ${invoicesTwinByTwin} invoices`);
  console.log(
    JSON.stringify({
      bench: 'environment advance in one time order vs twin by twin',
      days: DAYS,
      subscriptions: SUBSCRIPTIONS,
      slack_scheduled: DAYS * 2,
      twilio_messages: 10,
      first: FIRST,
      invoices: invoicesOrdered,
      ordered_ms: Math.round(orderedMs),
      twin_by_twin_ms: Math.round(directMs),
      ratio: Number((orderedMs / directMs).toFixed(2)),
      ordered_control_plane_cpu_ms: Math.round(orderedCpu),
      twin_by_twin_control_plane_cpu_ms: Math.round(directCpu),
    }),
  );
  console.log(`ordered ${Math.round(orderedMs)} ms vs twin by twin ${Math.round(directMs)} ms (×${(orderedMs / directMs).toFixed(2)})`);
} finally {
  await bench.stop();
}
