// The hosted checkout page a session's `url` points at, driven as a browser does (GET the page,
// POST its form url-encoded): the typed card decides what happens, a refused card re-renders the
// page with Stripe's sentence and keeps nothing, and a twin started with a given key keeps it.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY, START, startBillingTwin } from './billing-helpers.js';
import { loadTwin } from '../../../twin-runtime/registry.js';
import { TwinServer } from '../../../twin-runtime/server.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;

async function setupSession() {
  const customer = await stripe.customers.create({ email: 'ada@example.com' });
  const session = await stripe.checkout.sessions.create({
    mode: 'setup',
    currency: 'usd',
    customer: customer.id,
    success_url: 'https://example.com/done?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://example.com/cancel',
  });
  return { customer, session };
}

function submit(url: string, fields: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

const card = (number: string, extra: Record<string, string> = {}) => ({
  card_number: number,
  card_expiry: '12 / 34',
  card_cvc: '123',
  name: 'Ada Lovelace',
  ...extra,
});

t.test('the page is a form with the card fields', async (t) => {
  const { session } = await setupSession();
  const page = await fetch(session.url!);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  // A card form no other site may frame and that loads nothing from anywhere.
  t.match(page.headers.get('content-security-policy'), /default-src 'none'.*frame-ancestors 'none'/);
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  const html = await page.text();
  for (const name of ['card_number', 'card_expiry', 'card_cvc', 'email', 'name']) t.match(html, new RegExp(`name="${name}"`));
  t.match(html, /<form method="post">/);
  t.match(html, /Save card/);
  t.equal((await fetch(`${bt.twin.url}/c/pay/cs_test_nope`)).status, 404);
});

t.test('setup mode with 4242: redirect, card saved on the customer, setup intent succeeded', async (t) => {
  const { customer, session } = await setupSession();
  const res = await submit(session.url!, card('4242 4242 4242 4242'));
  t.equal(res.status, 303);
  t.equal(res.headers.get('location'), `https://example.com/done?session_id=${session.id}`);
  const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['setup_intent.payment_method'] });
  t.equal(done.status, 'complete');
  const intent = done.setup_intent as any;
  t.equal(intent.status, 'succeeded');
  t.match(intent.payment_method, { customer: customer.id, card: { last4: '4242', exp_month: 12, exp_year: 2034, brand: 'visa' } });
  t.equal((await fetch(session.url!)).status, 200);
  t.match(await (await fetch(session.url!)).text(), /This session is complete/);
  t.equal((await submit(session.url!, card('4242424242424242'))).status, 409, 'a completed session takes no second card');
});

t.test('refused cards: the page again with the sentence, the session open, nothing kept', async (t) => {
  const { customer, session } = await setupSession();
  for (const [number, sentence] of [
    ['4000 0000 0000 0002', /Your card was declined\./],
    ['4242 4242 4242 4241', /Your card number is incorrect\./],
  ] as const) {
    const res = await submit(session.url!, card(number));
    t.equal(res.status, 402, number);
    t.match(await res.text(), sentence);
  }
  const expired = await submit(session.url!, card('4242424242424242', { card_expiry: '01 / 20' }));
  t.equal(expired.status, 402);
  t.match(await expired.text(), /expiration year is in the past/);
  const noCvc = await submit(session.url!, card('4242424242424242', { card_cvc: '' }));
  t.equal(noCvc.status, 402);
  t.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'open');
  t.equal((await stripe.customers.listPaymentMethods(customer.id)).data.length, 0, 'no card was attached');
});

t.test('4000 0000 0000 0341 is saved, then declines when charged', async (t) => {
  const { customer, session } = await setupSession();
  t.equal((await submit(session.url!, card('4000000000000341'))).status, 303);
  const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['setup_intent'] });
  const pm = (done.setup_intent as any).payment_method as string;
  const charge = await stripe.paymentIntents
    .create({ amount: 1000, currency: 'usd', customer: customer.id, payment_method: pm, confirm: true, off_session: true })
    .catch((e) => e);
  t.equal(charge.type, 'StripeCardError');
  t.equal(charge.code, 'card_declined');
});

t.test('an empty form pays with 4242 (the one-click shortcut)', async (t) => {
  const { session } = await setupSession();
  t.equal((await submit(session.url!, {})).status, 303);
  t.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'complete');
});

t.test('a twin started with a key keeps it (the control plane’s house twin)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twin-key-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const key = 'sk_test_' + 'k'.repeat(99);
  const def = await loadTwin('stripe');
  for (let i = 0; i < 2; i++) {
    const server = new TwinServer(def, { dataFile: join(dir, 'stripe.sqlite'), apiKey: key, clockStart: new Date(START.getTime() + DAY) });
    const url = await server.listen(0, '127.0.0.1');
    t.equal(server.apiKey, key);
    const res = await fetch(`${url}/v1/customers`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(res.status, 200, `start ${i + 1} accepts the same key`);
    await server.close();
  }
  const minted = new TwinServer(def, { dataFile: join(dir, 'other.sqlite') });
  t.not(minted.apiKey, key, 'without one, a key is minted');
  await minted.close();
});
