// Card tokens and customer sources through the official SDK: `tokens.create({card})` from real card
// details (brand, funding, last4, fingerprint from the number; Luhn and expiry checked with Stripe's
// card_error codes), a token used once, `customers.create({source})` saving it as the default
// source, /v1/customers/{id}/sources, and legacy charges on a token, a source or the default source.

import t from 'tap';
import type Stripe from 'stripe';
import { startBillingTwin, type BillingTwin } from './billing-helpers.js';
import { checkSchema } from './spec-schema.js';

let bt: BillingTwin;
let stripe: Stripe;
t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

const raw = async (path: string) => (await fetch(`${bt.twin.url}${path}`, { headers: { authorization: `Bearer ${bt.twin.apiKey}` } })).json();

const card = (number: string, extra: Record<string, string> = {}) => ({ card: { number, exp_month: '12', exp_year: '2030', cvc: '123', ...extra } });

t.test('a card token is a real card, checked as Stripe checks it', async (t) => {
  const token = await stripe.tokens.create(card('4242 4242 4242 4242', { name: 'Jenny Rosen', address_zip: '94107' }));
  t.match(token.id, /^tok_/);
  t.equal(token.type, 'card');
  t.equal(token.used, false);
  const c = token.card!;
  t.match(c.id, /^card_/);
  t.equal(c.brand, 'Visa');
  t.equal(c.funding, 'credit');
  t.equal(c.last4, '4242');
  t.equal(c.exp_year, 2030);
  t.equal(c.name, 'Jenny Rosen');
  t.equal(c.address_zip, '94107');
  t.match(c.fingerprint, /^\w{16}$/);
  checkSchema(t, 'token', await raw(`/v1/tokens/${token.id}`));
  const same = await stripe.tokens.create(card('4242424242424242'));
  t.equal(same.card!.fingerprint, c.fingerprint, 'the same number, the same fingerprint');
  const debit = await stripe.tokens.create(card('5200828282828210'));
  t.equal(debit.card!.brand, 'MasterCard');
  t.equal(debit.card!.funding, 'debit');
  t.not(debit.card!.fingerprint, c.fingerprint);
  t.equal((await stripe.tokens.retrieve(token.id)).id, token.id);

  const bad = await stripe.tokens.create(card('4242424242424241')).catch((e) => e);
  t.equal(bad.statusCode, 402);
  t.equal(bad.type, 'StripeCardError');
  t.equal(bad.code, 'incorrect_number');
  t.equal(bad.param, 'card[number]');
  const short = await stripe.tokens.create(card('1234')).catch((e) => e);
  t.equal(short.code, 'incorrect_number');
  const expired = await stripe.tokens.create(card('4242424242424242', { exp_year: '2020' })).catch((e) => e);
  t.equal(expired.code, 'invalid_expiry_year');
  const month = await stripe.tokens.create(card('4242424242424242', { exp_month: '13' })).catch((e) => e);
  t.equal(month.code, 'invalid_expiry_month');
});

t.test('a token charges once; a customer source charges through the customer', async (t) => {
  const token = await stripe.tokens.create(card('4242424242424242'));
  const charge = await stripe.charges.create({ amount: 2000, currency: 'usd', source: token.id });
  t.equal(charge.status, 'succeeded');
  t.equal((charge.source as Stripe.Card).id, token.card!.id);
  t.equal(charge.payment_method, token.card!.id);
  t.equal(charge.payment_method_details?.card?.last4, '4242');
  t.equal((await stripe.tokens.retrieve(token.id)).used, true);
  const twice = await stripe.charges.create({ amount: 2000, currency: 'usd', source: token.id }).catch((e) => e);
  t.equal(twice.statusCode, 400);
  t.equal(twice.code, 'token_already_used');

  const first = await stripe.tokens.create(card('4242424242424242'));
  const customer = await stripe.customers.create({ email: 'sources@example.com', source: first.id });
  t.equal(customer.default_source, first.card!.id);
  const second = await stripe.customers.createSource(customer.id, { source: 'tok_mastercard', metadata: { label: 'backup' } });
  t.equal((second as Stripe.Card).brand, 'MasterCard');
  t.equal((second as Stripe.Card).customer, customer.id);
  t.equal((second as Stripe.Card).metadata?.label, 'backup');
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).default_source, first.card!.id, 'the first source stays the default');
  const sources = await stripe.customers.listSources(customer.id, { object: 'card' });
  t.equal(sources.data.length, 2);
  const expanded = (await stripe.customers.retrieve(customer.id, { expand: ['sources'] })) as Stripe.Customer;
  t.equal(expanded.sources!.data.length, 2);

  const byDefault = await stripe.charges.create({ amount: 1500, currency: 'usd', customer: customer.id });
  t.equal(byDefault.payment_method, first.card!.id, 'a customer-only charge takes the default source');
  t.equal(byDefault.customer, customer.id);
  const bySource = await stripe.charges.create({ amount: 1500, currency: 'usd', customer: customer.id, source: second.id });
  t.equal(bySource.payment_method_details?.card?.brand, 'mastercard');
  const stranger = await stripe.customers.create({ email: 'stranger@example.com' });
  const notTheirs = await stripe.charges.create({ amount: 1500, currency: 'usd', customer: stranger.id, source: second.id }).catch((e) => e);
  t.equal(notTheirs.statusCode, 400);
  t.match(notTheirs.message, /does not have a linked source/);

  const refusedOnSave = await stripe.customers.createSource(customer.id, { source: 'tok_chargeDeclined' }).catch((e) => e);
  t.equal(refusedOnSave.statusCode, 402, 'a card the issuer refuses is not saved');
  t.equal(refusedOnSave.code, 'card_declined');
  const declining = await stripe.customers.createSource(customer.id, { source: 'tok_chargeCustomerFail' });
  const declined = await stripe.charges.create({ amount: 1500, currency: 'usd', customer: customer.id, source: declining.id }).catch((e) => e);
  t.equal(declined.statusCode, 402, 'a test card declines as a source too');
  t.equal(declined.code, 'card_declined');
  t.equal((await stripe.customers.listSources(customer.id)).data.length, 3, 'the refused card was not saved');

  const updated = await stripe.customers.updateSource(customer.id, second.id, { name: 'J Rosen', exp_year: '2031' });
  t.equal((updated as Stripe.Card).name, 'J Rosen');
  t.equal((updated as Stripe.Card).exp_year, 2031);
  const removed = await stripe.customers.deleteSource(customer.id, first.card!.id);
  t.equal((removed as { deleted?: boolean }).deleted, true);
  const after = (await stripe.customers.retrieve(customer.id)) as Stripe.Customer;
  t.not(after.default_source, first.card!.id);
  t.ok(after.default_source, 'another source becomes the default');
  const gone = await stripe.customers.retrieveSource(customer.id, first.card!.id).catch((e) => e);
  t.equal(gone.statusCode, 404);
});
