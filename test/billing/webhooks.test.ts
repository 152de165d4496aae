// The processor's webhooks: the signature is verified with the signing secret against the exact
// bytes received; an unsigned, altered or wrongly signed event is refused with 400.

import t from 'tap';
import Stripe from 'stripe';
import { startBillingControlPlane, waitFor } from './helpers.js';
import { WEBHOOK_PATH } from '../../control-plane/billing/service.js';

t.test('webhooks: the signature is checked against the exact bytes', async (t) => {
  const cp = await startBillingControlPlane();
  t.teardown(() => cp.stop());
  const house = cp.services.billing.house!;
  await waitFor('webhook endpoint', async () => house.webhookSecret(), 60_000);
  const secret = house.webhookSecret()!;
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', data: { object: { object: 'invoice', id: 'in_1', customer: 'cus_nobody' } } });
  const post = (body: string, signature?: string) =>
    fetch(cp.url + WEBHOOK_PATH, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) }, body });
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
