// The embedded default end to end, as `make dev` runs it: `twins serve` as its own process on a
// fresh data directory with no billing configuration (the house Stripe twin is the processor).
// checkout → the hosted page paid with 4242… by form posts → upgrade → pay as you go; usage reported
// every second fills the draft invoice with twin-hours; moving the house twin past the period end
// finalizes and pays that invoice and opens the next period. No processor secret appears in any
// log line or API answer.

import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { waitFor } from '../orchestration/helpers.js';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { CARD_OK, payOnHostedPage, serveInChild } from './helpers.js';

t.test('make dev, no configuration: checkout → 4242 → upgrade → metered twin-hours → renewal paid', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-embedded-'));
  // `make dev` is `node bin/twins.js serve`; only what the test needs is set (no billing settings).
  const serve = serveInChild({ TWINS_DATA_DIR: dataDir, TWINS_USAGE_INTERVAL_S: '1' });
  t.teardown(async () => {
    await serve.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = await serve.url;
  const answers: string[] = [];
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const token = await mintLocalToken(await loadLocalKeys(dataDir), { email: 'ada@example.com', org: 'acme', role: 'admin' });
  await waitFor('billing ready', async () => (await call('GET', '/organizations/current/billing', token)).body.ready, 60_000);

  const checkout = await call('POST', '/organizations/current/billing/checkout', token);
  t.equal(checkout.status, 201);
  const paid = await payOnHostedPage(checkout.body.url, CARD_OK);
  answers.push(paid.html);
  t.equal(paid.status, 303, 'the hosted page took the card');
  const upgraded = await call('POST', '/organizations/current/billing/upgrade', token, { checkout_session: checkout.body.checkout_session });
  t.equal(upgraded.status, 200);
  t.match(upgraded.body, { plan: 'paygo', max_parallel_twins: null, ai_generation_enabled: true, ready: true });

  const env = await call('POST', '/environments', token, { name: 'work', twins: [{ twin: 'stripe' }, { twin: 'github' }] });
  t.equal(env.status, 201);
  await waitFor('environment ready', async () => (await call('GET', `/environments/${env.body.id}`, token)).body.status === 'ready', 60_000);
  const seeds: string[] = [];
  for (let i = 0; i < 3; i++) seeds.push((await call('POST', '/seeds', token, { name: `s${i}`, twin: 'stripe', prompt: 'two customers' })).body.id);
  const draft = await waitFor(
    'the draft invoice with the usage',
    async () => {
      const b = (await call('GET', '/organizations/current/billing', token)).body;
      return b.invoice?.total_cents === 70 ? b.invoice : undefined;
    },
    60_000,
  );
  const byName = Object.fromEntries(draft.line_items.map((l: any) => [l.name, l]));
  t.same(byName['Stripe twin-hours'], { name: 'Stripe twin-hours', total_cents: 5, twin: 'stripe', quantity: 1, unit_price_cents: 5 });
  t.same(byName['GitHub twin-hours'], { name: 'GitHub twin-hours', total_cents: 5, twin: 'github', quantity: 1, unit_price_cents: 5 });
  t.same(byName['Stripe AI generations'], { name: 'Stripe AI generations', total_cents: 60, twin: 'stripe', quantity: 3, unit_price_cents: 20 });

  // Past the period end (plus the hour Stripe waits before finalizing): the invoice is paid.
  const house = JSON.parse(readFileSync(join(dataDir, 'house', 'stripe.json'), 'utf8')) as {
    url: string;
    api_key: string;
    admin_secret: string;
    webhook_secret: string;
  };
  const advance = await fetch(`${house.url}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-twin-admin-secret': house.admin_secret },
    // Waits for the whole advance (the runtime answers 202 after 800 ms otherwise: a loaded machine).
    body: JSON.stringify({ to: new Date(Date.parse(draft.period_end) + 2 * 3600_000).toISOString(), wait_ms: 600_000 }),
  });
  t.equal(advance.status, 200);
  const stripe = new Stripe(house.api_key, { host: '127.0.0.1', port: Number(new URL(house.url).port), protocol: 'http', maxNetworkRetries: 0 });
  const invoices = (await stripe.invoices.list({ limit: 10 })).data.filter((i) => i.billing_reason === 'subscription_cycle');
  t.equal(invoices.length, 1, 'the period was invoiced');
  t.match(invoices[0], {
    status: 'paid',
    amount_paid: 70,
    period_start: Date.parse(draft.period_start) / 1000,
    period_end: Date.parse(draft.period_end) / 1000,
  });
  const next = await waitFor(
    'the next period',
    async () => {
      const b = (await call('GET', '/organizations/current/billing', token)).body;
      return b.invoice && b.invoice.period_start === draft.period_end ? b : undefined;
    },
    30_000,
  );
  t.ok(Date.parse(next.invoice.period_end) > Date.parse(draft.period_end), 'the next period is open');
  t.equal(next.past_due, false);

  t.equal(await serve.stop(), 0, 'a clean shutdown');
  t.notOk(existsSync(join(dataDir, 'house', 'workloads', 'house-stripe.json')), 'the house twin stopped with it');

  // Secrets: in no log line, in no answer.
  const logs = serve.logs();
  t.match(logs, /house Stripe twin listening/, 'the logs were captured');
  t.ok(answers.length > 10);
  for (const secret of [house.api_key, house.webhook_secret, house.admin_secret]) {
    t.ok(secret && secret.length > 20);
    t.notOk(logs.includes(secret), 'no secret in the logs');
    t.notOk(
      answers.some((a) => a.includes(secret)),
      'no secret in an API answer',
    );
  }
});
