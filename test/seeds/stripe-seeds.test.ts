// Every Stripe suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and the official Stripe SDK reads the data the prompt promised.

import t from 'tap';
import Stripe from 'stripe';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTwin } from '../../twin-runtime/registry.js';
import { planFromPrompt } from '../../seeds/builtin-planner.js';
import { generateSeedFile } from '../../seeds/generator.js';
import type { TwinSeeding } from '../../twin-runtime/seeding.js';
import { startTwin } from '../helpers/twin.js';

const dir = mkdtempSync(join(tmpdir(), 'seeds-stripe-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const twin = await loadTwin('stripe');
const seeding = twin.seeding as TwinSeeding;

async function seedFrom(prompt: string, name: string): Promise<string> {
  const planned = planFromPrompt('stripe', prompt, seeding.vocabulary);
  if (!planned.ok) throw new Error(planned.failure);
  const out = await generateSeedFile(twin, planned.plan, join(dir, `${name}.sqlite`));
  return out.file;
}

async function withTwin<T>(seedFile: string, fn: (stripe: Stripe) => Promise<T>): Promise<T> {
  const running = await startTwin('stripe', { seedFile });
  const url = new URL(running.url);
  const stripe = new Stripe(running.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  try {
    return await fn(stripe);
  } finally {
    await running.close();
  }
}

async function all<T>(list: (params: any) => Stripe.ApiListPromise<T>, params: Record<string, unknown> = {}): Promise<T[]> {
  const out: T[] = [];
  for await (const item of list({ ...params, limit: 100 })) out.push(item);
  return out;
}

t.ok(twin.suggestions.length >= 5, 'at least five Stripe suggestions');

t.test('the issue example: 40 customers, 12 on Pro monthly, 3 past due, Ana Lima with a duplicate $42 charge', async (t) => {
  const file = await seedFrom(twin.suggestions[0]!.prompt, 'example');
  await withTwin(file, async (stripe) => {
    const customers = await all((p) => stripe.customers.list(p));
    t.equal(customers.length, 41, '40 customers plus Ana Lima');
    const subs = await all((p) => stripe.subscriptions.list(p), { status: 'all' });
    t.equal(subs.length, 12, 'twelve subscriptions');
    const prices = await all((p) => stripe.prices.list(p));
    t.equal(prices.length, 1);
    t.equal(prices[0]!.recurring?.interval, 'month');
    const product = await stripe.products.retrieve(prices[0]!.product as string);
    t.equal(product.name, 'Pro');
    t.ok(
      subs.every((s) => s.items.data[0]!.price.id === prices[0]!.id),
      'all on the Pro monthly price',
    );
    t.equal(subs.filter((s) => s.status === 'past_due').length, 3, 'three past due');
    t.equal(subs.filter((s) => s.status === 'active').length, 9, 'the others active');
    // A past-due subscription has its failed renewal: an open invoice whose charge failed.
    const pastDue = subs.find((s) => s.status === 'past_due')!;
    const invoice = await stripe.invoices.retrieve(pastDue.latest_invoice as string);
    t.equal(invoice.status, 'open');
    t.equal(invoice.billing_reason, 'subscription_cycle');

    const ana = customers.filter((c) => c.name === 'Ana Lima');
    t.equal(ana.length, 1, 'exactly one Ana Lima');
    const charges = await all((p) => stripe.charges.list(p), { customer: ana[0]!.id });
    t.equal(charges.length, 2, 'two charges');
    t.ok(
      charges.every((c) => c.amount === 4200 && c.currency === 'usd' && c.status === 'succeeded'),
      'both $42, succeeded',
    );
    t.equal(charges[0]!.description, charges[1]!.description, 'the duplicate repeats the original');
  });
});

t.test('trials: 6 trialing on Starter monthly, 4 on Business yearly', async (t) => {
  const file = await seedFrom(twin.suggestions[1]!.prompt, 'trials');
  await withTwin(file, async (stripe) => {
    t.equal((await all((p) => stripe.customers.list(p))).length, 25);
    const subs = await all((p) => stripe.subscriptions.list(p), { status: 'all' });
    t.equal(subs.filter((s) => s.status === 'trialing').length, 6);
    const yearly = subs.filter((s) => s.items.data[0]!.price.recurring?.interval === 'year');
    t.equal(yearly.length, 4);
    t.ok(yearly.every((s) => s.status === 'active'));
  });
});

t.test('churn: 30 on Team monthly, 5 past due, 4 canceled', async (t) => {
  const file = await seedFrom(twin.suggestions[2]!.prompt, 'churn');
  await withTwin(file, async (stripe) => {
    const subs = await all((p) => stripe.subscriptions.list(p), { status: 'all' });
    t.equal(subs.length, 30);
    t.equal(subs.filter((s) => s.status === 'past_due').length, 5);
    t.equal(subs.filter((s) => s.status === 'canceled').length, 4);
    t.equal(subs.filter((s) => s.status === 'active').length, 21);
  });
});

t.test('refunds: Marco Rossi with one of three $19.99 charges refunded', async (t) => {
  const file = await seedFrom(twin.suggestions[3]!.prompt, 'refunds');
  await withTwin(file, async (stripe) => {
    const marco = (await stripe.customers.search({ query: "name:'Marco Rossi'" })).data;
    t.equal(marco.length, 1);
    const charges = await all((p) => stripe.charges.list(p), { customer: marco[0]!.id });
    t.equal(charges.length, 3);
    t.ok(charges.every((c) => c.amount === 1999));
    t.equal(charges.filter((c) => c.refunded).length, 1);
    const others = (await all((p) => stripe.customers.list(p))).filter((c) => c.id !== marco[0]!.id);
    t.equal(others.length, 8);
    for (const c of others.slice(0, 2)) {
      const cs = await all((p) => stripe.charges.list(p), { customer: c.id });
      t.same(
        cs.map((x) => x.amount),
        [12000, 12000],
      );
    }
  });
});

t.test('declines: Priya Patel has one declined $300 charge', async (t) => {
  const file = await seedFrom(twin.suggestions[4]!.prompt, 'declines');
  await withTwin(file, async (stripe) => {
    const priya = (await all((p) => stripe.customers.list(p))).filter((c) => c.name === 'Priya Patel');
    t.equal(priya.length, 1);
    const charges = await all((p) => stripe.charges.list(p), { customer: priya[0]!.id });
    t.same(charges.map((c) => c.status).sort(), ['failed', 'succeeded']);
    t.ok(charges.every((c) => c.amount === 30000));
    t.equal((await all((p) => stripe.charges.list(p), { limit: 100 })).filter((c) => c.amount === 7500).length, 15);
  });
});

t.test('catalog: 5 products and 50 customers', async (t) => {
  const file = await seedFrom(twin.suggestions[5]!.prompt, 'catalog');
  await withTwin(file, async (stripe) => {
    t.equal((await all((p) => stripe.products.list(p))).length, 5);
    t.equal((await all((p) => stripe.customers.list(p))).length, 50);
  });
});

t.test('the same prompt twice gives byte-identical records; one more customer changes nothing else', async (t) => {
  const prompt = twin.suggestions[0]!.prompt;
  const a = await seedFrom(prompt, 'same-a');
  const b = await seedFrom(prompt, 'same-b');
  const rows = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT seq, resource, external_id, body FROM records ORDER BY seq').all() as { resource: string; body: string }[];
    } finally {
      db.close();
    }
  };
  // The Stripe twin stamps each event with the request id of the API call that caused it, and
  // draws request ids at random (as Stripe does); that one field is the only allowed difference.
  const withoutRequestIds = (rs: { resource: string; body: string }[]) =>
    rs.map((r) => (r.resource === 'event' ? { ...r, body: r.body.replace(/"req_[A-Za-z0-9]+"/g, '"req_"') } : r));
  const ra = rows(a);
  t.ok(ra.length > 100);
  t.same(withoutRequestIds(rows(b)), withoutRequestIds(ra), 'identical records, in the same order');
  t.same(
    rows(b).filter((r) => r.resource !== 'event'),
    ra.filter((r) => r.resource !== 'event'),
    'every non-event record byte-identical',
  );

  const c = rows(await seedFrom('41 customers', 'forty-one'));
  const d = rows(await seedFrom('40 customers', 'forty'));
  const names = (rs: { resource: string; body: string }[]) =>
    rs.filter((r) => r.resource === 'customer').map((r) => JSON.parse(r.body) as { name: string; email: string });
  t.same(
    names(c)
      .slice(0, 40)
      .map((x) => [x.name, x.email]),
    names(d).map((x) => [x.name, x.email]),
    'the first 40 keep their values',
  );
});

t.test('a loaded twin resets to its seed', async (t) => {
  const file = await seedFrom('3 customers', 'reset');
  const running = await startTwin('stripe', { seedFile: file });
  try {
    const url = new URL(running.url);
    const stripe = new Stripe(running.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    await stripe.customers.create({ name: 'Extra' });
    t.equal((await stripe.customers.list({ limit: 100 })).data.length, 4);
    const res = await fetch(`${running.url}/_twin/reset`, { method: 'POST' });
    t.equal(res.status, 200);
    const after = (await stripe.customers.list({ limit: 100 })).data;
    t.equal(after.length, 3);
    t.notOk(after.some((c) => c.name === 'Extra'));
  } finally {
    await running.close();
  }
});
