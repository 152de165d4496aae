// The processor's webhooks: the signature is verified with the signing secret against the exact
// bytes received (an unsigned, altered or wrongly signed event is refused with 400); a subscription
// canceled at the processor ends pay as you go.

import t from 'tap';
import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { startBillingControlPlane, upgradeWithCard, waitBillingReady, waitFor } from './helpers.js';
import { WEBHOOK_PATH } from '../../control-plane/billing/service.js';

t.test('webhooks: the signature is checked against the exact bytes', async (t) => {
  const cp = await startBillingControlPlane();
  t.teardown(() => cp.stop());
  const house = cp.services.billing.house!;
  await waitFor('webhook endpoint', async () => house.webhookSecret(), 60_000);
  const secret = house.webhookSecret()!;
  const payload = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'invoice.paid',
    data: { object: { object: 'invoice', id: 'in_1', customer: 'cus_nobody' } },
  });
  const post = (body: string, signature?: string) =>
    fetch(cp.url + WEBHOOK_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
      body,
    });
  const good = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  const ok = await post(payload, good);
  t.equal(ok.status, 200, 'a signed event (for nobody we bill) is taken');
  t.same(await ok.json(), { received: true });
  const missing = await post(payload);
  t.equal(missing.status, 400);
  t.match((await missing.json()).detail, /Stripe-Signature header is missing/);
  const tampered = await post(payload.replace('in_1', 'in_2'), good);
  t.equal(tampered.status, 400, 'a changed body does not verify');
  const wrongSecret = await post(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }));
  t.equal(wrongSecret.status, 400);
  t.notMatch(await wrongSecret.text(), secret, 'the secret is in no answer');
});

t.test('a subscription canceled at the processor returns the organization to its default plan; upgrading again starts a new one', async (t) => {
  const cp = await startBillingControlPlane();
  t.teardown(() => cp.stop());
  const admin = await cp.token({ org: 'vandelay' });
  await waitBillingReady(cp, admin);
  await upgradeWithCard(cp, admin);
  const orgId = (await cp.call('GET', '/organizations/current', { token: admin })).body.id;
  const first = cp.services.billing.store.account(orgId)!.subscription_id!;
  const state = JSON.parse(readFileSync(cp.services.billing.house!.stateFile, 'utf8')) as { url: string; api_key: string };
  const stripe = new Stripe(state.api_key, { host: '127.0.0.1', port: Number(new URL(state.url).port), protocol: 'http', maxNetworkRetries: 0 });
  await stripe.subscriptions.cancel(first);
  const ended = await waitFor(
    'back on free',
    async () => {
      const b = (await cp.call('GET', '/organizations/current/billing', { token: admin })).body;
      return b.plan === 'free' ? b : undefined;
    },
    30_000,
  );
  t.match(ended, { max_parallel_twins: 3, past_due: false, invoice: null, notice: /Pay as you go ended .*is canceled/ });
  const again = await upgradeWithCard(cp, admin);
  t.match(again, { plan: 'paygo', notice: null });
  const second = cp.services.billing.store.account(orgId)!.subscription_id!;
  t.not(second, first, 'a new subscription');
  t.equal((await stripe.subscriptions.retrieve(second)).status, 'active');
});
