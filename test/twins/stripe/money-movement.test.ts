// Money movement with the official SDK through the recording gateway: balance transactions with
// Stripe's fee on every captured charge and refund, the balance moving from pending to available on
// `advance`, manual payouts (insufficient funds, paid on `advance`, cancel), and disputes from the
// dispute test cards (withdrawal and fee, evidence, close, won/lost on `advance`), every event
// checked as a signed webhook with `stripe.webhooks.constructEvent`.

import t from 'tap';
import Stripe from 'stripe';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const START = new Date('2026-03-02T09:00:00Z');
const DAY = 86_400_000;
const gw = await startGatewayTwin('stripe', { clockStart: START });
const url = new URL(gw.url);
const stripe = new Stripe(gw.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
const hooks = await startWebhookReceiver(stripe);
t.teardown(async () => {
  await hooks.close();
  await gw.close();
});

let now = START.getTime();
async function advance(ms: number): Promise<void> {
  now += ms;
  await gw.twin.advance(new Date(now));
}

async function usd(): Promise<{ available: number; pending: number }> {
  const b = await stripe.balance.retrieve();
  return { available: b.available.find((a) => a.currency === 'usd')!.amount, pending: b.pending.find((a) => a.currency === 'usd')!.amount };
}

async function paid(amount: number, payment_method = 'pm_card_visa'): Promise<Stripe.Charge> {
  const pi = await stripe.paymentIntents.create({
    amount,
    currency: 'usd',
    payment_method,
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  t.equal(pi.status, 'succeeded');
  return stripe.charges.retrieve(pi.latest_charge as string);
}

t.test('a captured charge and a refund each have a balance transaction; funds become available on advance', async (t) => {
  const start = await usd();
  t.same(start, { available: 0, pending: 0 }, 'a new account has nothing');
  const charge = await paid(10_000);
  t.match(charge.balance_transaction, /^txn_/, 'charge.balance_transaction is set once captured');
  const txn = await stripe.balanceTransactions.retrieve(charge.balance_transaction as string);
  t.equal(txn.type, 'charge');
  t.equal(txn.source, charge.id);
  t.equal(txn.amount, 10_000);
  t.equal(txn.fee, 320, '2.9 % + 30¢');
  t.same(txn.fee_details, [{ amount: 320, application: null, currency: 'usd', description: 'Stripe processing fees', type: 'stripe_fee' }]);
  t.equal(txn.net, 9_680);
  t.equal(txn.status, 'pending');
  t.equal(txn.available_on, charge.created + 2 * 86_400);
  t.same(await usd(), { available: 0, pending: 9_680 });

  const refund = await stripe.refunds.create({ charge: charge.id, amount: 2_000 });
  t.match(refund.balance_transaction, /^txn_/);
  const refundTxn = await stripe.balanceTransactions.retrieve(refund.balance_transaction as string);
  t.equal(refundTxn.type, 'refund');
  t.equal(refundTxn.amount, -2_000);
  t.equal(refundTxn.fee, 0, 'Stripe keeps the processing fee of a refunded charge');
  t.equal(refundTxn.net, -2_000);
  t.same(await usd(), { available: -2_000, pending: 9_680 });

  // A manual capture gets its balance transaction when it is captured, on the captured amount.
  const auth = await stripe.paymentIntents.create({
    amount: 1_000,
    currency: 'usd',
    capture_method: 'manual',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  t.equal((await stripe.charges.retrieve(auth.latest_charge as string)).balance_transaction, null, 'an authorization moves no money');
  await stripe.paymentIntents.capture(auth.id, { amount_to_capture: 800 });
  const captured = await stripe.charges.retrieve(auth.latest_charge as string, { expand: ['balance_transaction'] });
  const capturedTxn = captured.balance_transaction as Stripe.BalanceTransaction;
  t.equal(capturedTxn.amount, 800);
  t.equal(capturedTxn.fee, 53);
  t.equal(capturedTxn.net, 747);

  const charges = await stripe.balanceTransactions.list({ type: 'charge', limit: 10 });
  t.equal(charges.data.length, 2);
  t.ok(charges.data.every((b) => b.type === 'charge'));
  const bySource = await stripe.balanceTransactions.list({ source: refund.id });
  t.same(
    bySource.data.map((b) => b.id),
    [refundTxn.id],
  );

  await advance(2 * DAY + 60_000);
  t.equal((await stripe.balanceTransactions.retrieve(txn.id)).status, 'available');
  t.same(await usd(), { available: 9_680 - 2_000 + 747, pending: 0 }, 'pending funds became available');
});

t.test('manual payouts: insufficient funds, paid on advance, cancel', async (t) => {
  const { available } = await usd();
  t.ok(available > 0, 'funds to pay out');
  const tooMuch = await stripe.payouts.create({ amount: available + 1, currency: 'usd' }).catch((e) => e);
  t.type(tooMuch, Stripe.errors.StripeInvalidRequestError);
  t.equal(tooMuch.statusCode, 400);
  t.equal(tooMuch.code, 'balance_insufficient');
  t.match(tooMuch.message, /insufficient funds in your Stripe account/);

  const payout = await stripe.payouts.create({ amount: 5_000, currency: 'usd', description: 'Weekly' });
  t.match(payout.id, /^po_/);
  t.equal(payout.status, 'pending');
  t.equal(payout.automatic, false);
  t.match(payout.destination, /^ba_/);
  const payoutTxn = await stripe.balanceTransactions.retrieve(payout.balance_transaction as string);
  t.equal(payoutTxn.type, 'payout');
  t.equal(payoutTxn.amount, -5_000);
  t.same(await usd(), { available: available - 5_000, pending: 0 });
  await hooks.waitFor('payout.created', (p) => p.id === payout.id);
  const manualFilter = await stripe.balanceTransactions.list({ payout: payout.id }).catch((e) => e);
  t.equal(manualFilter.statusCode, 400, 'only automatic payouts list what they paid out');

  const second = await stripe.payouts.create({ amount: 1_000, currency: 'usd' });
  const canceled = await stripe.payouts.cancel(second.id);
  t.equal(canceled.status, 'canceled');
  t.match(canceled.failure_balance_transaction, /^txn_/);
  t.same(await usd(), { available: available - 5_000, pending: 0 }, 'a canceled payout gives its funds back');
  await hooks.waitFor('payout.canceled', (p) => p.id === second.id);
  const again = await stripe.payouts.cancel(second.id).catch((e) => e);
  t.equal(again.statusCode, 400);

  await advance(DAY + 60_000);
  t.equal((await stripe.payouts.retrieve(payout.id)).status, 'paid');
  const paidHook = await hooks.waitFor('payout.paid', (p) => p.id === payout.id);
  t.equal((paidHook.data.object as Stripe.Payout).status, 'paid');
  const list = await stripe.payouts.list({ status: 'paid' });
  t.same(
    list.data.map((p) => p.id),
    [payout.id],
  );
});

t.test('a dispute lost after advance moves the balance', async (t) => {
  const before = await usd();
  const charge = await paid(5_000, 'pm_card_createDispute');
  const created = await hooks.waitFor('charge.dispute.created', (d) => d.charge === charge.id);
  const dispute = created.data.object as Stripe.Dispute;
  t.match(dispute.id, /^dp_/);
  t.equal(dispute.status, 'needs_response');
  t.equal(dispute.reason, 'fraudulent');
  t.equal(dispute.amount, 5_000);
  t.equal((await stripe.charges.retrieve(charge.id)).disputed, true);
  await hooks.waitFor('charge.dispute.funds_withdrawn', (d) => d.id === dispute.id);
  t.equal(dispute.balance_transactions.length, 1);
  const withdrawal = dispute.balance_transactions[0]!;
  t.equal(withdrawal.amount, -5_000);
  t.equal(withdrawal.fee, 1_500, 'dispute fee 15.00 USD');
  t.equal(withdrawal.net, -6_500);
  t.equal(withdrawal.reporting_category, 'dispute');
  const chargeNet = 5_000 - 175;
  t.same(await usd(), { available: before.available - 6_500, pending: before.pending + chargeNet });

  // Evidence staged, then submitted with Stripe's losing test value.
  const staged = await stripe.disputes.update(dispute.id, { evidence: { customer_name: 'Jenny Rosen' }, submit: false });
  t.equal(staged.status, 'needs_response');
  t.equal(staged.evidence.customer_name, 'Jenny Rosen');
  t.equal(staged.evidence_details.has_evidence, true);
  t.equal(staged.evidence_details.submission_count, 0);
  const submitted = await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'losing_evidence' } });
  t.equal(submitted.status, 'under_review');
  t.equal(submitted.evidence_details.submission_count, 1);
  await hooks.waitFor('charge.dispute.updated', (d) => d.id === dispute.id && d.status === 'under_review');

  await advance(2 * DAY + 60_000);
  const closed = await hooks.waitFor('charge.dispute.closed', (d) => d.id === dispute.id);
  t.equal((closed.data.object as Stripe.Dispute).status, 'lost');
  t.equal((await stripe.disputes.retrieve(dispute.id)).status, 'lost');
  t.same(await usd(), { available: before.available - 6_500 + chargeNet, pending: before.pending }, 'the disputed amount and fee stay withdrawn');
  const late = await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'winning_evidence' } }).catch((e) => e);
  t.equal(late.statusCode, 400, 'a closed dispute takes no more evidence');
});

t.test('winning evidence reinstates the funds; close accepts; an unanswered dispute is lost at its deadline', async (t) => {
  // The raw test number, as a card form would send it.
  const pm = await stripe.paymentMethods.create({ type: 'card', card: { number: '4000000000000259', exp_month: 12, exp_year: 2034, cvc: '123' } });
  const charge = await paid(2_000, pm.id);
  const [won] = (await stripe.disputes.list({ charge: charge.id })).data;
  t.ok(won, 'the card number opens a dispute too');
  const before = await usd();
  await stripe.disputes.update(won!.id, { evidence: { uncategorized_text: 'winning_evidence' } });
  await advance(10 * 60_000);
  const wonNow = await stripe.disputes.retrieve(won!.id);
  t.equal(wonNow.status, 'won');
  t.equal(wonNow.balance_transactions.length, 2);
  t.equal(wonNow.balance_transactions[1]!.net, 3_500, 'amount and fee reinstated');
  t.equal((await usd()).available, before.available + 3_500);
  await hooks.waitFor('charge.dispute.funds_reinstated', (d) => d.id === won!.id);

  const accepted = await paid(1_500, 'pm_card_createDisputeProductNotReceived');
  const [toClose] = (await stripe.disputes.list({ charge: accepted.id })).data;
  t.equal(toClose!.reason, 'product_not_received');
  const closed = await stripe.disputes.close(toClose!.id);
  t.equal(closed.status, 'lost');
  await hooks.waitFor('charge.dispute.closed', (d) => d.id === toClose!.id);

  const inquiryCharge = await paid(1_000, 'pm_card_createDisputeInquiry');
  const [inquiry] = (await stripe.disputes.list({ charge: inquiryCharge.id })).data;
  t.equal(inquiry!.status, 'warning_needs_response');
  t.same(inquiry!.balance_transactions, [], 'an inquiry withdraws nothing');

  const ignored = await paid(1_000, 'pm_card_createDispute');
  const [unanswered] = (await stripe.disputes.list({ charge: ignored.id })).data;
  await advance(8 * DAY);
  const lapsed = await stripe.disputes.retrieve(unanswered!.id);
  t.equal(lapsed.status, 'lost');
  t.equal(lapsed.evidence_details.past_due, true);
  t.equal((await stripe.disputes.retrieve(inquiry!.id)).status, 'warning_closed');

  const logged = await gw.logged();
  t.ok(
    logged.some((l) => l.path.startsWith('/v1/disputes') && l.status_code === 200),
    'the gateway recorded the dispute calls',
  );
  t.same(hooks.rejected, [], 'every webhook verified');
});

t.test('automatic payouts follow the balance settings schedule on advance', async (t) => {
  const manual = await stripe.balanceSettings.retrieve();
  t.equal(manual.payments.payouts?.schedule?.interval, 'manual', "the twin's default: advance moves no money unasked");
  const daily = await stripe.balanceSettings.update({ payments: { payouts: { schedule: { interval: 'daily' } } } });
  t.equal(daily.payments.payouts?.schedule?.interval, 'daily');
  const charge = await paid(10_000);
  await advance(3 * DAY);
  const automatic = (await stripe.payouts.list({ limit: 100 })).data.filter((p) => p.automatic);
  t.ok(automatic.length > 0, 'automatic payouts were made');
  let carrying: Stripe.Payout | undefined;
  for (const p of automatic) {
    const txns = await stripe.balanceTransactions.list({ payout: p.id, limit: 100 });
    if (txns.data.some((b) => b.source === charge.id)) carrying = p;
  }
  t.ok(carrying, "the charge's funds were paid out automatically");
  const paidOut = await stripe.balanceTransactions.list({ payout: carrying!.id, limit: 100 });
  t.ok(
    paidOut.data.some((b) => b.id === carrying!.balance_transaction),
    "the payout's own transaction is listed",
  );
  t.equal(
    paidOut.data.reduce((sum, b) => sum + b.net, 0),
    0,
    'what it paid out nets to zero with the payout',
  );
  t.equal((await usd()).available, 0, 'the available balance was swept');
  await stripe.balanceSettings.update({ payments: { payouts: { schedule: { interval: 'manual' } } } });
  await advance(DAY + 60_000);
  await hooks.waitFor('payout.paid', (p) => p.id === carrying!.id);
  t.equal((await stripe.payouts.retrieve(carrying!.id)).status, 'paid');
  const stillManual = (await stripe.payouts.list({ limit: 100 })).data.filter((p) => p.automatic).length;
  t.equal(stillManual, automatic.length, 'no automatic payout once the schedule is manual again');
  await stripe.balanceSettings.update({ payments: { payouts: { schedule: { interval: 'manual' } } } });
});
