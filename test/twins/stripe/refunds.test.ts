// Refunds through the official SDK: partial and full refunds and their limits on every refund
// route (/v1/refunds by charge or payment intent, /v1/charges/{charge}/refunds and the legacy
// /v1/charges/{charge}/refund), a charged-back charge refused (`charge_disputed`) while an inquiry
// stays refundable, a refund that fails (`pm_card_refundFail`: `failed`, `charge.refund.updated`,
// `refund.failed`, the funds back), refund updates and cancels, and amount limits on create and
// capture (`amount_too_small`, `amount_too_large`).

import t from 'tap';
import type Stripe from 'stripe';
import { startBillingTwin, type BillingTwin } from './billing-helpers.js';

let bt: BillingTwin;
let stripe: Stripe;
t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

async function paid(amount: number, pm = 'pm_card_visa'): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.create({ amount, currency: 'usd', payment_method: pm, confirm: true });
}

async function raw<T = any>(method: 'GET' | 'POST', path: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await stripe.rawRequest(method, path, params);
  return res as unknown as T;
}

t.test('partial and full refunds and their limits, on every route', async (t) => {
  const pi = await paid(5000);
  const chargeId = pi.latest_charge as string;
  const first = await stripe.refunds.create({ payment_intent: pi.id, amount: 1000, metadata: { ticket: 'T-1' } });
  t.equal(first.status, 'succeeded');
  t.equal(first.amount, 1000);
  const second = await raw<Stripe.Refund>('POST', `/v1/charges/${chargeId}/refunds`, { amount: 1500 });
  t.equal(second.object, 'refund');
  t.equal(second.charge, chargeId);
  let charge = await stripe.charges.retrieve(chargeId);
  t.equal(charge.amount_refunded, 2500);
  t.equal(charge.refunded, false);

  const tooMuch = await stripe.refunds.create({ charge: chargeId, amount: 2501 }).catch((e) => e);
  t.equal(tooMuch.statusCode, 400);
  t.equal(tooMuch.code, 'amount_too_large');
  t.match(tooMuch.message, /greater than unrefunded amount on charge \(\$25\.00\)/);
  const overCharge = await raw('POST', `/v1/charges/${chargeId}/refunds`, { amount: 9000 }).catch((e) => e);
  t.equal(overCharge.code, 'amount_too_large');
  t.match(overCharge.message, /greater than charge amount \(\$50\.00\)/);
  const zero = await stripe.refunds.create({ charge: chargeId, amount: 0 }).catch((e) => e);
  t.equal(zero.statusCode, 400);

  // The legacy route refunds the rest and answers the charge.
  const legacy = await raw<Stripe.Charge>('POST', `/v1/charges/${chargeId}/refund`, {});
  t.equal(legacy.object, 'charge');
  t.equal(legacy.amount_refunded, 5000);
  t.equal(legacy.refunded, true);
  const again = await stripe.refunds.create({ charge: chargeId }).catch((e) => e);
  t.equal(again.code, 'charge_already_refunded');

  const listed = await raw<Stripe.ApiList<Stripe.Refund>>('GET', `/v1/charges/${chargeId}/refunds`);
  t.equal(listed.data.length, 3);
  t.same(
    listed.data.map((r) => r.amount),
    [2500, 1500, 1000],
    'newest first',
  );
  const one = await raw<Stripe.Refund>('GET', `/v1/charges/${chargeId}/refunds/${first.id}`);
  t.equal(one.metadata?.ticket, 'T-1');
  const updated = await raw<Stripe.Refund>('POST', `/v1/charges/${chargeId}/refunds/${first.id}`, { metadata: { ticket: 'T-2' } });
  t.equal(updated.metadata?.ticket, 'T-2');
  t.equal((await stripe.refunds.update(first.id, { metadata: { ticket: '' } })).metadata?.ticket, undefined);

  const other = await paid(700);
  const foreign = await raw('GET', `/v1/charges/${other.latest_charge}/refunds/${first.id}`).catch((e) => e);
  t.equal(foreign.code, 'resource_missing', "another charge's refund is not found under this one");
  charge = await stripe.charges.retrieve(chargeId);
  t.equal(charge.amount_refunded, 5000);

  const cancel = await stripe.refunds.cancel(first.id).catch((e) => e);
  t.equal(cancel.statusCode, 400);
  t.match(cancel.message, /status of succeeded\. Only refunds with a status of requires_action can be canceled/);
});

t.test('a charged-back charge is not refundable; an inquiry is', async (t) => {
  const disputed = await stripe.charges.create({ amount: 3000, currency: 'usd', source: 'tok_createDispute' });
  t.equal(disputed.disputed, true);
  const dispute = (await stripe.disputes.list({ charge: disputed.id })).data[0]!;
  t.equal(dispute.is_charge_refundable, false);
  const refused = await stripe.refunds.create({ charge: disputed.id }).catch((e) => e);
  t.equal(refused.statusCode, 400);
  t.equal(refused.code, 'charge_disputed');
  t.equal(refused.message, `Charge ${disputed.id} has been charged back; cannot issue a refund.`);
  t.equal(refused.param, 'charge');
  const scoped = await raw('POST', `/v1/charges/${disputed.id}/refunds`, { amount: 100 }).catch((e) => e);
  t.equal(scoped.code, 'charge_disputed');
  t.equal((await stripe.charges.retrieve(disputed.id)).amount_refunded, 0);

  const viaIntent = await paid(2000, 'pm_card_createDispute');
  const byIntent = await stripe.refunds.create({ payment_intent: viaIntent.id }).catch((e) => e);
  t.equal(byIntent.code, 'charge_disputed');
  t.equal(byIntent.param, 'payment_intent');

  const inquiry = await stripe.charges.create({ amount: 3000, currency: 'usd', source: 'tok_createDisputeInquiry' });
  const inq = (await stripe.disputes.list({ charge: inquiry.id })).data[0]!;
  t.equal(inq.is_charge_refundable, true);
  const refund = await stripe.refunds.create({ charge: inquiry.id });
  t.equal(refund.status, 'succeeded');
});

t.test('a refund that fails (pm_card_refundFail)', async (t) => {
  const pi = await paid(4200, 'pm_card_refundFail');
  t.equal(pi.status, 'succeeded', 'the charge itself succeeds');
  const before = await stripe.balance.retrieve();
  const refund = await stripe.refunds.create({ payment_intent: pi.id });
  t.equal(refund.status, 'succeeded', 'the create answers as Stripe answers it');
  const failed = await stripe.refunds.retrieve(refund.id);
  t.equal(failed.status, 'failed');
  t.equal(failed.failure_reason, 'expired_or_canceled_card');
  const txn = await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string);
  t.equal(txn.type, 'refund_failure');
  t.equal(txn.amount, 4200);
  const after = await stripe.balance.retrieve();
  const available = (b: Stripe.Balance) => b.available.find((x) => x.currency === 'usd')?.amount ?? 0;
  t.equal(available(after), available(before), 'the refund and its failure cancel out');
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(charge.amount_refunded, 0);
  t.equal(charge.refunded, false);

  const events = await stripe.events.list({ limit: 20 });
  const ofRefund = events.data.filter((e) => (e.data.object as { id?: string }).id === refund.id).map((e) => e.type);
  t.ok(ofRefund.length > 0);
  for (const type of ['refund.created', 'refund.updated', 'charge.refund.updated', 'refund.failed']) t.ok(ofRefund.includes(type as Stripe.Event.Type), type);
  const updated = events.data.find((e) => e.type === 'charge.refund.updated')!;
  t.same(updated.data.previous_attributes, { failure_balance_transaction: null, failure_reason: null, status: 'succeeded' });

  const retry = await stripe.refunds.create({ payment_intent: pi.id, amount: 100 });
  t.equal(retry.amount, 100, 'the failed amount is refundable again');
});

t.test('amount limits on create and capture', async (t) => {
  const huge = await stripe.charges.create({ amount: 100_000_000, currency: 'usd', source: 'tok_visa' }).catch((e) => e);
  t.equal(huge.statusCode, 400);
  t.equal(huge.code, 'amount_too_large');
  t.equal(huge.message, 'Amount must be no more than $999,999.99 usd');
  const tiny = await stripe.charges.create({ amount: 49, currency: 'usd', source: 'tok_visa' }).catch((e) => e);
  t.equal(tiny.code, 'amount_too_small');

  const auth = await stripe.charges.create({ amount: 2000, currency: 'usd', source: 'tok_visa', capture: false });
  const small = await stripe.charges.capture(auth.id, { amount: 12 }).catch((e) => e);
  t.equal(small.statusCode, 400);
  t.equal(small.code, 'amount_too_small');
  t.equal(small.param, 'amount');
  const over = await stripe.charges.capture(auth.id, { amount: 2001 }).catch((e) => e);
  t.equal(over.code, 'amount_too_large');
  const captured = await stripe.charges.capture(auth.id, { amount: 1500 });
  t.equal(captured.amount_captured, 1500);

  const intent = await stripe.paymentIntents.create({
    amount: 3000,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    capture_method: 'manual',
  });
  const pennies = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 12 }).catch((e) => e);
  t.equal(pennies.code, 'amount_too_small');
  t.equal(pennies.param, 'amount_to_capture');
  t.equal((await stripe.paymentIntents.retrieve(intent.id)).status, 'requires_capture', 'a refused capture changes nothing');
  const done = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 2500 });
  t.equal(done.amount_received, 2500);
});
