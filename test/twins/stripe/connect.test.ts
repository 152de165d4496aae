// Connect basics with the official SDK through the recording gateway: an Express account onboarded
// through an account link's page (submitted over HTTP as a browser does) becoming charges- and
// payouts-enabled with a signed `account.updated` Connect webhook; a destination charge with an
// application fee producing its transfer, the connected account's payment and the fee; transfers
// with Stripe's balance and capability errors, reversals; `Stripe-Account` scoping every request
// (objects created for an account are invisible to the platform and to other accounts, and the
// reverse); accounts' list, update and delete. Objects are checked against Stripe's OpenAPI schema.

import t from 'tap';
import Stripe from 'stripe';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { checkSchema } from './spec-schema.js';
import { customerWithCard, monthlyPrice } from './billing-helpers.js';

const START = new Date('2026-03-02T09:00:00Z');
const gw = await startGatewayTwin('stripe', { clockStart: START });
const url = new URL(gw.url);
const stripe = new Stripe(gw.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
const hooks = await startWebhookReceiver(stripe, { connect: true });
t.teardown(async () => {
  await hooks.close();
  await gw.close();
});

function post(to: string, form: Record<string, string>): Promise<Response> {
  return fetch(to, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function raw(path: string, account?: string): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.apiKey}` };
  if (account) headers['stripe-account'] = account;
  return (await fetch(`${gw.url}${path}`, { headers })).json();
}

const ONBOARDING = {
  business_type: 'company',
  business_name: 'Rocket Rides',
  url: 'https://rocketrides.example',
  email: 'owner@rocketrides.example',
  tos: 'accepted',
};

/** An Express account onboarded through its account link's page. */
async function onboarded(): Promise<Stripe.Account> {
  const account = await stripe.accounts.create({
    type: 'express',
    country: 'US',
    capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
  });
  const link = await stripe.accountLinks.create({
    account: account.id,
    type: 'account_onboarding',
    refresh_url: 'https://platform.example/reauth',
    return_url: 'https://platform.example/return',
  });
  const res = await post(link.url, ONBOARDING);
  if (res.status !== 303) throw new Error(`onboarding answered ${res.status}`);
  return stripe.accounts.retrieve(account.id);
}

t.test('an Express account is onboarded through its account link page', async (t) => {
  const account = await stripe.accounts.create({
    type: 'express',
    country: 'US',
    email: 'owner@rocketrides.example',
    capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
  });
  t.match(account.id, /^acct_/);
  t.equal(account.type, 'express');
  t.equal(account.charges_enabled, false);
  t.equal(account.payouts_enabled, false);
  t.equal(account.details_submitted, false);
  t.same(account.capabilities, { card_payments: 'inactive', transfers: 'inactive' });
  t.ok(account.requirements!.currently_due!.length > 0, 'onboarding requirements are due');
  t.equal(account.requirements!.disabled_reason, 'requirements.past_due');
  t.same(account.controller, {
    fees: { payer: 'application_express' },
    is_controller: true,
    losses: { payments: 'application' },
    requirement_collection: 'stripe',
    stripe_dashboard: { type: 'express' },
    type: 'application',
  });
  checkSchema(t, 'account', await raw(`/v1/accounts/${account.id}`));

  const link = await stripe.accountLinks.create({
    account: account.id,
    type: 'account_onboarding',
    refresh_url: 'https://platform.example/reauth',
    return_url: 'https://platform.example/return',
  });
  t.equal(link.object, 'account_link');
  t.equal(link.expires_at - link.created, 300);
  t.ok(link.url.startsWith(gw.url), 'the link opens a page the twin serves, through the gateway');
  checkSchema(t, 'account_link', link);

  const page = await fetch(link.url);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  const body = await page.text();
  t.match(body, /name="business_name"/);
  t.match(body, new RegExp(account.id));

  const refused = await post(link.url, { ...ONBOARDING, tos: '' });
  t.equal(refused.status, 400, 'the agreement must be accepted');
  t.match(await refused.text(), /Connected Account Agreement/);
  t.equal((await stripe.accounts.retrieve(account.id)).details_submitted, false, 'a refused submission changes nothing');

  const done = await post(link.url, ONBOARDING);
  t.equal(done.status, 303);
  t.equal(done.headers.get('location'), 'https://platform.example/return');

  const after = await stripe.accounts.retrieve(account.id);
  t.equal(after.details_submitted, true);
  t.equal(after.charges_enabled, true);
  t.equal(after.payouts_enabled, true);
  t.same(after.capabilities, { card_payments: 'active', transfers: 'active' });
  t.same(after.requirements!.currently_due, []);
  t.equal(after.requirements!.disabled_reason, null);
  t.equal(after.business_profile!.name, 'Rocket Rides');
  t.equal(after.external_accounts!.data.length, 1);
  t.ok(after.tos_acceptance!.date, 'the terms were accepted');
  checkSchema(t, 'account', await raw(`/v1/accounts/${account.id}`));

  const event = await hooks.waitFor('account.updated', (o) => o.id === account.id && o.charges_enabled === true);
  t.equal(event.account, account.id, 'account.updated is a Connect event of the account');
  t.equal((event.data.previous_attributes as any).charges_enabled, false);
  t.same(hooks.rejected, []);

  // A used link sends the person to refresh_url, as does the page again.
  const again = await fetch(link.url, { redirect: 'manual' });
  t.equal(again.status, 303);
  t.equal(again.headers.get('location'), 'https://platform.example/reauth');
  t.equal((await fetch(link.url.replace(/[^/]+$/, 'nope'))).status, 404);
});

t.test('accounts: types, controller properties, update, list, delete, the platform account', async (t) => {
  const standard = await stripe.accounts.create({ type: 'standard' });
  t.equal(standard.type, 'standard');
  t.equal((standard.controller as any).stripe_dashboard.type, 'full');
  const custom = await stripe.accounts.create({ type: 'custom', country: 'DE', capabilities: { transfers: { requested: true } } });
  t.equal(custom.default_currency, 'eur');
  t.same(custom.capabilities, { transfers: 'inactive' });
  const controlled = await stripe.accounts.create({
    controller: {
      fees: { payer: 'application' },
      losses: { payments: 'application' },
      stripe_dashboard: { type: 'none' },
      requirement_collection: 'application',
    },
  });
  t.equal(controlled.type, 'none');
  t.equal((controlled.controller as any).requirement_collection, 'application');

  await t.rejects(stripe.accounts.create({ type: 'express', controller: { fees: { payer: 'application' } } }), {
    type: 'StripeInvalidRequestError',
    code: undefined,
    param: 'controller',
  });
  await t.rejects(stripe.accountLinks.create({ account: standard.id, type: 'account_update' }), {
    type: 'StripeInvalidRequestError',
    code: undefined,
    param: 'type',
  });
  const updateLink = await stripe.accountLinks.create({
    account: custom.id,
    type: 'account_update',
    refresh_url: 'https://p.example/r',
    return_url: 'https://p.example/ok',
  });
  t.match(updateLink.url, /\/setup\/e\//);

  await t.rejects(stripe.accounts.createLoginLink(custom.id), { statusCode: 400, message: /Express Dashboard/ });
  const updated = await stripe.accounts.update(custom.id, {
    email: 'ops@custom.example',
    metadata: { tier: 'gold' },
    business_profile: { name: 'Custom GmbH' },
  });
  t.equal(updated.email, 'ops@custom.example');
  t.same(updated.metadata, { tier: 'gold' });
  t.equal(updated.business_profile!.name, 'Custom GmbH');
  const event = await hooks.waitFor('account.updated', (o) => o.id === custom.id && o.email === 'ops@custom.example');
  t.equal(event.account, custom.id);

  const page1 = await stripe.accounts.list({ limit: 2 });
  t.equal(page1.data.length, 2);
  t.equal(page1.has_more, true);
  t.same(
    page1.data.map((a) => a.id),
    [controlled.id, custom.id],
    'newest first',
  );
  const page2 = await stripe.accounts.list({ limit: 2, starting_after: custom.id });
  t.ok(page2.data.length > 0);
  t.equal(page2.data[0]!.id, standard.id);

  // Capabilities as their own objects, from the account's state.
  const caps = await stripe.accounts.listCapabilities(custom.id);
  t.same(
    caps.data.map((c) => [c.id, c.status, c.requested]),
    [['transfers', 'inactive', true]],
  );
  checkSchema(t, 'capability', caps.data[0]);
  const card = await stripe.accounts.updateCapability(custom.id, 'card_payments', { requested: true });
  t.equal(card.status, 'inactive');
  t.equal(card.account, custom.id);
  const capEvent = await hooks.waitFor('capability.updated', (o) => o.account === custom.id && o.id === 'card_payments');
  t.equal(capEvent.account, custom.id);
  t.same((await stripe.accounts.retrieve(custom.id)).capabilities, { card_payments: 'inactive', transfers: 'inactive' });
  t.equal((await stripe.accounts.retrieveCapability(custom.id, 'transfers')).id, 'transfers');
  await t.rejects(stripe.accounts.retrieveCapability(custom.id, 'us_bank_account_ach_payments'), { statusCode: 404, code: 'resource_missing' });
  const dropped = await stripe.accounts.updateCapability(custom.id, 'card_payments', { requested: false });
  t.equal(dropped.requested, false);
  t.same((await stripe.accounts.retrieve(custom.id)).capabilities, { transfers: 'inactive' });

  const deleted = await stripe.accounts.del(standard.id);
  t.same(deleted, { id: standard.id, object: 'account', deleted: true });
  await t.rejects(stripe.accounts.retrieve(standard.id), { statusCode: 403, code: 'account_invalid' });

  const platform = await stripe.accounts.retrieve(null);
  t.match(platform.id, /^acct_/);
  t.equal(platform.charges_enabled, true);
  t.notOk(
    (await stripe.accounts.list({ limit: 100 })).data.some((a) => a.id === platform.id),
    'the platform is not one of its connected accounts',
  );
  const asSelf = await stripe.customers.create({ email: 'self@platform.example' }, { stripeAccount: platform.id });
  t.equal((await stripe.customers.retrieve(asSelf.id)).id, asSelf.id, "the platform's own id in Stripe-Account is the platform");
  const asConnected = await stripe.accounts.retrieve(null, {}, { stripeAccount: custom.id });
  t.equal(asConnected.id, custom.id, 'GET /v1/account with Stripe-Account is the connected account');
});

t.test('a destination charge with an application fee: transfer, payment on the account, application fee', async (t) => {
  const account = await onboarded();
  const pi = await stripe.paymentIntents.create({
    amount: 10_000,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    application_fee_amount: 1_230,
    transfer_data: { destination: account.id },
  });
  t.equal(pi.status, 'succeeded');
  t.same(pi.transfer_data, { destination: account.id });
  t.equal(pi.application_fee_amount, 1_230);
  checkSchema(t, 'payment_intent', await raw(`/v1/payment_intents/${pi.id}`));

  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.match(charge.transfer, /^tr_/);
  t.match(charge.application_fee, /^fee_/);
  t.same(charge.transfer_data, { amount: null, destination: account.id });
  t.equal(charge.transfer_group, `group_${pi.id}`);
  checkSchema(t, 'charge', await raw(`/v1/charges/${charge.id}`));

  const transfer = await stripe.transfers.retrieve(charge.transfer as string);
  t.equal(transfer.amount, 10_000);
  t.equal(transfer.destination, account.id);
  t.equal(transfer.source_transaction, charge.id);
  t.match(transfer.destination_payment, /^py_/);
  checkSchema(t, 'transfer', await raw(`/v1/transfers/${transfer.id}`));
  const created = await hooks.waitFor('transfer.created', (o) => o.id === transfer.id);
  t.notOk(created.account, "a transfer is the platform's own event");

  const fee = await stripe.applicationFees.retrieve(charge.application_fee as string);
  t.equal(fee.amount, 1_230);
  t.equal(fee.account, account.id);
  t.equal(fee.originating_transaction, charge.id);
  t.equal(fee.charge, transfer.destination_payment);
  t.match(fee.application, /^ca_/);
  checkSchema(t, 'application_fee', await raw(`/v1/application_fees/${fee.id}`));
  const fees = await stripe.applicationFees.list({ limit: 10 });
  t.ok(fees.data.length > 0);
  t.ok(fees.data.some((f) => f.id === fee.id));
  await hooks.waitFor('application_fee.created', (o) => o.id === fee.id);

  // The platform's ledger: the charge in, the transfer out, the fee in.
  const platformTxns = await stripe.balanceTransactions.list({ limit: 10 });
  const byType = (type: string) => platformTxns.data.filter((b) => b.type === type && [charge.id, transfer.id, fee.id].includes(b.source as string));
  t.equal(byType('charge')[0]!.amount, 10_000);
  t.equal(byType('transfer')[0]!.amount, -10_000);
  t.equal(byType('application_fee')[0]!.amount, 1_230);

  // The connected account's side: a payment of the full amount less the application fee.
  const payment = await stripe.charges.retrieve(transfer.destination_payment as string, {}, { stripeAccount: account.id });
  t.equal(payment.amount, 10_000);
  t.equal(payment.source_transfer, transfer.id);
  checkSchema(t, 'charge', await raw(`/v1/charges/${payment.id}`, account.id));
  checkSchema(t, 'balance_transaction', await raw(`/v1/balance_transactions/${payment.balance_transaction}`, account.id));
  const paymentTxn = await stripe.balanceTransactions.retrieve(payment.balance_transaction as string, {}, { stripeAccount: account.id });
  t.equal(paymentTxn.type, 'payment');
  t.equal(paymentTxn.fee, 1_230);
  t.equal(paymentTxn.net, 8_770);
  t.equal(paymentTxn.fee_details[0]!.type, 'application_fee');
  const balance = await stripe.balance.retrieve({}, { stripeAccount: account.id });
  t.equal(balance.pending.find((b) => b.currency === 'usd')!.amount, 8_770, "the account's own balance");
  await t.rejects(stripe.charges.retrieve(payment.id), { statusCode: 404, code: 'resource_missing' }, 'the payment is invisible to the platform');

  // Two days on, the account's funds are available (the lifecycle moves every account's money).
  await gw.twin.advance(new Date(START.getTime() + 3 * 86_400_000));
  const settled = await stripe.balance.retrieve({}, { stripeAccount: account.id });
  t.equal(settled.available.find((b) => b.currency === 'usd')!.amount, 8_770);
  t.equal(settled.pending.find((b) => b.currency === 'usd')!.amount, 0);
  // The account pays out from its own balance, to the bank account onboarding attached.
  const payout = await stripe.payouts.create({ amount: 1_000, currency: 'usd' }, { stripeAccount: account.id });
  t.equal(payout.amount, 1_000);
  await t.rejects(stripe.payouts.retrieve(payout.id), { statusCode: 404, code: 'resource_missing' }, "the account's payout is not the platform's");
  t.equal((await stripe.balance.retrieve({}, { stripeAccount: account.id })).available.find((b) => b.currency === 'usd')!.amount, 7_770);
  // The Express dashboard a login link opens shows the account's own money.
  const login = await stripe.accounts.createLoginLink(account.id);
  t.equal(login.object, 'login_link');
  checkSchema(t, 'login_link', login);
  const dash = await fetch(login.url);
  t.equal(dash.status, 200);
  const dashHtml = await dash.text();
  t.match(dashHtml, /Available: \$77\.70/);
  t.match(dashHtml, new RegExp(`data-id="${payout.id}"`));
  t.match(dashHtml, /STRIPE TEST BANK/);

  // A refund that reverses the transfer and refunds the application fee, in proportion (half).
  const refund = await stripe.refunds.create({ charge: charge.id, amount: 5_000, reverse_transfer: true, refund_application_fee: true });
  t.match(refund.transfer_reversal, /^trr_/);
  const halfReversed = await stripe.transfers.retrieve(transfer.id);
  t.equal(halfReversed.amount_reversed, 5_000);
  t.equal(halfReversed.reversals.data[0]!.source_refund, refund.id);
  const halfRefunded = await stripe.applicationFees.retrieve(fee.id);
  t.equal(halfRefunded.amount_refunded, 615);
  t.equal(halfRefunded.refunded, false);
  await hooks.waitFor('application_fee.refunded', (o) => o.id === fee.id);
  const feeRefund = await stripe.applicationFees.createRefund(fee.id);
  t.match(feeRefund.id, /^fr_/);
  t.equal(feeRefund.amount, 615, 'the rest of the fee');
  checkSchema(t, 'fee_refund', feeRefund);
  t.same(
    (await stripe.applicationFees.listRefunds(fee.id)).data.map((r) => r.amount),
    [615, 615],
  );
  t.equal((await stripe.applicationFees.retrieveRefund(fee.id, feeRefund.id)).id, feeRefund.id);
  t.equal((await stripe.applicationFees.retrieve(fee.id)).refunded, true);
  await t.rejects(stripe.applicationFees.createRefund(fee.id, { amount: 1 }), {
    statusCode: 400,
    message: /greater than the amount remaining/,
    param: 'amount',
  });
  // The account (8,770 less its 1,000 payout) gave back its share and got the fee back.
  const afterRefund = await stripe.balance.retrieve({}, { stripeAccount: account.id });
  t.equal(afterRefund.available.find((b) => b.currency === 'usd')!.amount, 7_770 - 5_000 + 1_230);

  // on_behalf_of names the settlement merchant on the intent and its charge.
  const obo = await stripe.paymentIntents.create({
    amount: 1_500,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    on_behalf_of: account.id,
    transfer_data: { destination: account.id },
  });
  t.equal(obo.on_behalf_of, account.id);
  t.equal((await stripe.charges.retrieve(obo.latest_charge as string)).on_behalf_of, account.id);
  await t.rejects(stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', on_behalf_of: 'acct_1NoSuchAccount00' }), {
    statusCode: 404,
    code: 'resource_missing',
    param: 'on_behalf_of',
  });

  // Errors as Stripe has them.
  await t.rejects(stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', transfer_data: { destination: 'acct_1NoSuchAccount00' } }), {
    statusCode: 404,
    code: 'resource_missing',
    param: 'transfer_data[destination]',
    message: "No such destination: 'acct_1NoSuchAccount00'",
  });
  await t.rejects(stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', application_fee_amount: 100 }), {
    statusCode: 400,
    message: /application_fee_amount/,
    param: 'application_fee_amount',
  });
  const fresh = await stripe.accounts.create({ type: 'express', capabilities: { transfers: { requested: true } } });
  await t.rejects(
    stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', transfer_data: { destination: fresh.id } }),
    { code: 'insufficient_capabilities_for_transfer' },
    'an account that has not onboarded cannot receive funds',
  );
});

t.test('transfers: balance_insufficient, source_transaction, list, update, reversals', async (t) => {
  const account = await onboarded();
  await t.rejects(stripe.transfers.create({ amount: 1_000_000_000, currency: 'usd', destination: account.id }), {
    statusCode: 400,
    code: 'balance_insufficient',
  });

  const pi = await stripe.paymentIntents.create({
    amount: 5_000,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  const tr = await stripe.transfers.create({
    amount: 3_000,
    currency: 'usd',
    destination: account.id,
    source_transaction: pi.latest_charge as string,
    transfer_group: 'ORDER_7',
    metadata: { order: '7' },
  });
  t.equal(tr.amount, 3_000);
  t.equal(tr.transfer_group, 'ORDER_7');
  t.same(tr.metadata, { order: '7' });
  const platformTxn = await stripe.balanceTransactions.retrieve(tr.balance_transaction as string);
  t.equal(platformTxn.type, 'transfer');
  t.equal(platformTxn.amount, -3_000);

  await t.rejects(
    stripe.transfers.create({ amount: 2_500, currency: 'usd', destination: account.id, source_transaction: pi.latest_charge as string }),
    { statusCode: 400, message: /remaining amount/, param: 'amount' },
    'the charge holds 2,000 after the first transfer',
  );
  const listed = await stripe.transfers.list({ destination: account.id });
  t.same(
    listed.data.map((x) => x.id),
    [tr.id],
  );
  t.same(
    (await stripe.transfers.list({ transfer_group: 'ORDER_7' })).data.map((x) => x.id),
    [tr.id],
  );

  const updated = await stripe.transfers.update(tr.id, { description: 'Order 7 payout' });
  t.equal(updated.description, 'Order 7 payout');
  await hooks.waitFor('transfer.updated', (o) => o.id === tr.id);

  const reversal = await stripe.transfers.createReversal(tr.id, { amount: 1_000 });
  t.match(reversal.id, /^trr_/);
  t.equal(reversal.amount, 1_000);
  checkSchema(t, 'transfer_reversal', reversal);
  const afterReversal = await stripe.transfers.retrieve(tr.id);
  t.equal(afterReversal.amount_reversed, 1_000);
  t.equal(afterReversal.reversed, false);
  t.same(
    (await stripe.transfers.listReversals(tr.id)).data.map((r) => r.id),
    [reversal.id],
  );
  t.equal((await stripe.transfers.retrieveReversal(tr.id, reversal.id)).amount, 1_000);
  await t.rejects(stripe.transfers.createReversal(tr.id, { amount: 5_000 }), {
    statusCode: 400,
    message: /greater than the amount remaining/,
    param: 'amount',
  });
  await stripe.transfers.createReversal(tr.id);
  t.equal((await stripe.transfers.retrieve(tr.id)).reversed, true);
  await hooks.waitFor('transfer.reversed', (o) => o.id === tr.id && o.reversed === true);
});

t.test('Stripe-Account scopes every request to the connected account', async (t) => {
  const a = await onboarded();
  const b = await onboarded();
  const onA = await stripe.customers.create({ email: 'buyer@a.example' }, { stripeAccount: a.id });
  const onPlatform = await stripe.customers.create({ email: 'buyer@platform.example' });

  t.equal((await stripe.customers.retrieve(onA.id, {}, { stripeAccount: a.id })).id, onA.id);
  await t.rejects(stripe.customers.retrieve(onA.id), { statusCode: 404, code: 'resource_missing' }, 'invisible to the platform');
  await t.rejects(
    stripe.customers.retrieve(onA.id, {}, { stripeAccount: b.id }),
    { statusCode: 404, code: 'resource_missing' },
    'invisible to another account',
  );
  await t.rejects(
    stripe.customers.retrieve(onPlatform.id, {}, { stripeAccount: a.id }),
    { statusCode: 404, code: 'resource_missing' },
    "the platform's objects are invisible to the account",
  );

  const listA = await stripe.customers.list({ limit: 100 }, { stripeAccount: a.id });
  t.same(
    listA.data.map((c) => c.id),
    [onA.id],
  );
  const listPlatform = await stripe.customers.list({ limit: 100 });
  t.ok(listPlatform.data.length > 0);
  t.notOk(listPlatform.data.some((c) => c.id === onA.id));

  // A direct charge on the account, with its events on the account (Connect events carry `account`).
  const pi = await stripe.paymentIntents.create(
    {
      amount: 2_000,
      currency: 'usd',
      customer: onA.id,
      payment_method: 'pm_card_visa',
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      application_fee_amount: 200,
    },
    { stripeAccount: a.id },
  );
  t.equal(pi.status, 'succeeded');
  await t.rejects(stripe.paymentIntents.retrieve(pi.id), { statusCode: 404, code: 'resource_missing' });
  const direct = await stripe.charges.retrieve(pi.latest_charge as string, { expand: ['balance_transaction'] }, { stripeAccount: a.id });
  t.match(direct.application_fee, /^fee_/, "a direct charge's application fee");
  const directTxn = direct.balance_transaction as Stripe.BalanceTransaction;
  t.same(
    directTxn.fee_details.map((f) => [f.type, f.amount]),
    [
      ['stripe_fee', 88],
      ['application_fee', 200],
    ],
  );
  t.equal(directTxn.net, 2_000 - 88 - 200);
  const directFee = await stripe.applicationFees.retrieve(direct.application_fee as string);
  t.equal(directFee.account, a.id);
  t.equal(directFee.charge, direct.id);
  t.equal(directFee.originating_transaction, null);
  const succeeded = await hooks.waitFor('payment_intent.succeeded', (o) => o.id === pi.id);
  t.equal(succeeded.account, a.id);
  const eventsOnA = await stripe.events.list({ type: 'payment_intent.succeeded' }, { stripeAccount: a.id });
  t.ok(eventsOnA.data.some((e) => e.id === succeeded.id));
  t.notOk(
    (await stripe.events.list({ type: 'payment_intent.succeeded', limit: 100 })).data.some((e) => e.id === succeeded.id),
    "the account's events are not the platform's",
  );
  const platformEvent = await hooks.waitFor('customer.created', (o) => o.id === onPlatform.id);
  t.notOk('account' in platformEvent, "the platform's own events carry no account");

  // The generic layer answers in the account's records too.
  const product = await stripe.products.create({ name: 'Ride' }, { stripeAccount: a.id });
  const coupon = await stripe.coupons.create({ percent_off: 10, duration: 'once' }, { stripeAccount: a.id });
  await t.rejects(stripe.coupons.retrieve(coupon.id), { statusCode: 404, code: 'resource_missing' });
  t.ok(product.id);

  // An idempotency key is the account's own.
  const key = `connect-${Date.now()}`;
  const first = await stripe.customers.create({ email: 'same@example.com' }, { stripeAccount: a.id, idempotencyKey: key });
  const second = await stripe.customers.create({ email: 'same@example.com' }, { stripeAccount: b.id, idempotencyKey: key });
  t.not(first.id, second.id);

  // Unknown or deleted accounts are refused as Stripe refuses them.
  const err = await stripe.customers.list({}, { stripeAccount: 'acct_1NoSuchAccount00' }).then(
    () => undefined,
    (e) => e,
  );
  t.equal(err?.statusCode, 403);
  t.equal(err?.code, 'account_invalid');
  t.match(err?.message, /does not have access to account 'acct_1NoSuchAccount00' \(or that account does not exist\)/);
  t.notMatch(err?.message, gw.apiKey, 'the key is masked');
  for (const hostile of ['__proto__', 'constructor', 'acct_' + 'x'.repeat(5000)]) {
    const res = await raw('/v1/customers', hostile);
    t.equal(res.error?.code, 'account_invalid', `Stripe-Account ${hostile.slice(0, 12)}… is refused, not a 500`);
  }
  await stripe.accounts.del(b.id);
  await t.rejects(stripe.customers.list({}, { stripeAccount: b.id }), { statusCode: 403, code: 'account_invalid' });
});

t.test('a Checkout Session for a destination charge: paid on the hosted page, funds transferred, fee kept', async (t) => {
  const account = await onboarded();
  const product = await stripe.products.create({ name: 'Ride' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 4_000, currency: 'usd' });
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://platform.example/thanks',
    payment_intent_data: { application_fee_amount: 400, transfer_data: { destination: account.id } },
  });
  const paid = await post(session.url!, { email: 'rider@example.com' });
  t.equal(paid.status, 303, 'the hosted page pays and redirects');
  const done = await stripe.checkout.sessions.retrieve(session.id);
  t.equal(done.payment_status, 'paid');
  const pi = await stripe.paymentIntents.retrieve(done.payment_intent as string);
  t.same(pi.transfer_data, { destination: account.id });
  t.equal(pi.application_fee_amount, 400);
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  const transfer = await stripe.transfers.retrieve(charge.transfer as string);
  t.equal(transfer.amount, 4_000);
  t.equal(transfer.destination, account.id);
  t.equal((await stripe.applicationFees.retrieve(charge.application_fee as string)).amount, 400);

  await t.rejects(
    stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: 'https://platform.example/thanks',
      payment_intent_data: { transfer_data: { destination: 'acct_1NoSuchAccount00' } },
    }),
    { statusCode: 404, code: 'resource_missing', param: 'payment_intent_data[transfer_data][destination]' },
  );
});

t.test('a subscription billed for a connected account: each invoice a destination charge with the fee percent', async (t) => {
  const account = await onboarded();
  const price = await monthlyPrice(stripe, 2_000);
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    transfer_data: { destination: account.id },
    application_fee_percent: 10,
  });
  t.equal(sub.status, 'active');
  t.same(sub.transfer_data, { amount_percent: null, destination: account.id });
  t.equal(sub.application_fee_percent, 10);
  const invoice = await stripe.invoices.retrieve(sub.latest_invoice as string);
  t.equal(invoice.status, 'paid');
  const pis = await stripe.paymentIntents.list({ customer: customer.id });
  t.equal(pis.data.length, 1);
  const pi = pis.data[0]!;
  t.same(pi.transfer_data, { destination: account.id });
  t.equal(pi.application_fee_amount, 200);
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal((await stripe.transfers.retrieve(charge.transfer as string)).destination, account.id);
  t.equal((await stripe.applicationFees.retrieve(charge.application_fee as string)).amount, 200);

  await t.rejects(stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], application_fee_percent: 10 }), {
    statusCode: 400,
    message: /application_fee_percent/,
    param: 'application_fee_percent',
  });
});
