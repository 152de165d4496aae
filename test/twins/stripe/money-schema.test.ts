// The money-movement and frontend objects the twin answers, checked against Stripe's published
// OpenAPI schema: balance, balance_transaction (charge, refund, payout, dispute), payout, dispute,
// ephemeral_key. `customer_session` is not in that copy of the spec (it predates customer
// sessions), so it is checked against the fields the bundled SDK's type declares.

import t from 'tap';
import type Stripe from 'stripe';
import { startBillingTwin } from './billing-helpers.js';
import { checkSchema as check, specHasSchema } from './spec-schema.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;

async function raw(method: 'GET' | 'POST' | 'DELETE', path: string, form = '', headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${bt.twin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bt.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: method === 'POST' ? form : undefined,
  });
  return res.json();
}

t.test('balance, balance transactions, payout, dispute and ephemeral key validate', async (t) => {
  check(t, 'balance', await raw('GET', '/v1/balance'));
  const pi = await stripe.paymentIntents.create({
    amount: 10_000,
    currency: 'usd',
    payment_method: 'pm_card_createDispute',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  const charge = await raw('GET', `/v1/charges/${pi.latest_charge}`);
  check(t, 'charge', charge);
  check(t, 'balance_transaction', await raw('GET', `/v1/balance_transactions/${charge.balance_transaction}`));
  // A charged-back charge is not refundable (model/refunds.ts): refund another.
  const refundable = await stripe.paymentIntents.create({
    amount: 10_000,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  const refund = await raw('POST', '/v1/refunds', `charge=${refundable.latest_charge}&amount=100`);
  check(t, 'refund', refund);
  check(t, 'balance_transaction', await raw('GET', `/v1/balance_transactions/${refund.balance_transaction}`));

  const disputes = await raw('GET', `/v1/disputes?charge=${charge.id}`);
  t.equal(disputes.data.length, 1);
  check(t, 'dispute', disputes.data[0]);
  check(t, 'dispute', await raw('POST', `/v1/disputes/${disputes.data[0].id}`, 'evidence[uncategorized_text]=winning_evidence'));
  await bt.twin.advance(new Date(Date.parse('2026-01-15T12:00:00Z') + 3 * 86_400_000));
  const won = await raw('GET', `/v1/disputes/${disputes.data[0].id}`);
  t.equal(won.status, 'won');
  check(t, 'dispute', won);

  const balance = await raw('GET', '/v1/balance');
  check(t, 'balance', balance);
  const payout = await raw('POST', '/v1/payouts', 'amount=1000&currency=usd');
  check(t, 'payout', payout);
  check(t, 'payout', await raw('POST', `/v1/payouts/${payout.id}/cancel`));
  const txns = await raw('GET', '/v1/balance_transactions?limit=100');
  t.ok(txns.data.length >= 5, 'charge, refund, dispute, reinstatement and payout transactions');
  for (const txn of txns.data) check(t, 'balance_transaction', txn);

  const customer = await stripe.customers.create({});
  const key = await raw('POST', '/v1/ephemeral_keys', `customer=${customer.id}`, { 'stripe-version': '2020-08-27' });
  check(t, 'ephemeral_key', key);
  check(t, 'ephemeral_key', await raw('DELETE', `/v1/ephemeral_keys/${key.id}`));
});

t.test('customer session has the fields the SDK declares', async (t) => {
  t.notOk(specHasSchema('customer_session'), 'the spec copy still lacks customer_session (else check it against the spec)');
  const customer = await stripe.customers.create({});
  const session = await raw('POST', '/v1/customer_sessions', `customer=${customer.id}&components[payment_element][enabled]=true`);
  // Stripe.CustomerSession's required fields (stripe@23 cjs/resources/CustomerSessions.d.ts).
  const declared: (keyof Stripe.CustomerSession)[] = ['object', 'client_secret', 'created', 'customer', 'expires_at', 'livemode'];
  for (const field of declared) t.ok(Object.hasOwn(session, field), `customer_session.${field}`);
  t.equal(session.components.payment_element.enabled, true);
  t.same(session.components.payment_element.features, {});
});
