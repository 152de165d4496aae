// Renewals through the processor's webhooks: a card that declines at renewal (4000 0000 0000 0341)
// marks the organization past due (a grace period while the processor retries), a recovered
// payment clears it, retries running out refuse new twins with 402, and a new card (checkout +
// upgrade) pays what is open and clears it.

import t from 'tap';
import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { CARD_DECLINES_LATER, startBillingControlPlane, upgradeWithCard, waitBillingReady, waitFor } from './helpers.js';
import type { TestControlPlane } from '../helpers/control-plane.js';

const DAY = 86_400_000;

interface Org {
  name: string;
  token: string;
  id: string;
}

async function billing(cp: TestControlPlane, org: Org): Promise<any> {
  return (await cp.call('GET', '/organizations/current/billing', { token: org.token })).body;
}

/** Three seeds (AI generations, 20¢ each): enough for a renewal charge above Stripe's minimum. */
async function generateSeeds(cp: TestControlPlane, org: Org): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await cp.call('POST', '/seeds', { token: org.token, body: { name: `s${i}`, twin: 'stripe', prompt: 'three customers' } });
    if (res.status !== 201) throw new Error(`seed: ${res.status} ${res.text}`);
    ids.push(res.body.id);
  }
  await waitFor(
    'seeds ready',
    async () => {
      for (const id of ids) if ((await cp.call('GET', `/seeds/${id}`, { token: org.token })).body.status !== 'ready') return false;
      return true;
    },
    60_000,
  );
}

t.test('a declined renewal: past due, recovered, retries over (402), a new card', async (t) => {
  const cp = await startBillingControlPlane({ usageIntervalSeconds: 3600 });
  t.teardown(() => cp.stop());
  const house = cp.services.billing.house!;
  const state = () => JSON.parse(readFileSync(house.stateFile, 'utf8')) as { url: string; api_key: string; admin_secret: string };
  const orgs: Org[] = [];
  for (const name of ['umbrella', 'soylent']) {
    const token = await cp.token({ email: `admin@${name}.example`, org: name, role: 'admin' });
    await waitBillingReady(cp, token);
    const id = (await cp.call('GET', '/organizations/current', { token })).body.id;
    orgs.push({ name, token, id });
  }
  const [umbrella, soylent] = orgs as [Org, Org];
  for (const org of orgs) {
    t.equal((await upgradeWithCard(cp, org.token, CARD_DECLINES_LATER)).plan, 'paygo', `${org.name} upgraded with a card that declines later`);
    await generateSeeds(cp, org);
  }
  await cp.services.billing.meterOnce();
  const draft = await billing(cp, umbrella);
  t.match(draft.invoice, { total_cents: 60, line_items: [{ twin: 'stripe', quantity: 3, unit_price_cents: 20, total_cents: 60 }] });

  // Retries run out into `unpaid` (the dashboard setting), so the subscription outlives them.
  const { url, api_key } = state();
  const stripe = new Stripe(api_key, { host: '127.0.0.1', port: Number(new URL(url).port), protocol: 'http', maxNetworkRetries: 0 });
  await stripe.rawRequest('POST', '/v1/test_helpers/billing_settings', { subscription_after_final_failure: 'unpaid' });

  // The period ends; an hour later the renewal invoice is finalized and its charge declined.
  const periodEnd = Math.max(...(await Promise.all(orgs.map(async (o) => Date.parse((await billing(cp, o)).invoice.period_end)))));
  await house.advance(new Date(periodEnd + 2 * 3600_000));
  for (const org of orgs) {
    const pastDue = await waitFor(
      `${org.name} past due`,
      async () => {
        const b = await billing(cp, org);
        return b.past_due ? b : undefined;
      },
      30_000,
    );
    t.equal(pastDue.plan, 'paygo');
    t.match(pastDue.notice, /failed \(Your card was declined\); the processor tries again on \d{4}-/, `${org.name}: the summary says what happened`);
  }
  const accountOf = (org: Org) => cp.services.billing.store.account(org.id)!;
  t.equal(accountOf(umbrella).payment_state, 'past_due');
  // The grace period: twins still start.
  const during = await cp.call('POST', '/environments', { token: soylent.token, body: { name: 'grace', twins: [{ twin: 'stripe' }] } });
  t.equal(during.status, 201, 'a new twin starts while the processor retries');

  // umbrella's bank recovers: the next retry succeeds and the paid invoice clears it.
  const customer = (await house.records<any>('customer')).find((c) => c.external_id === accountOf(umbrella).customer_id)!.body;
  const pm = customer.invoice_settings.default_payment_method as string;
  const card = (await house.records<any>('payment_method')).find((p) => p.external_id === pm)!.body;
  const put = await fetch(`${state().url}/_twin/records/payment_method/${pm}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-twin-admin-secret': state().admin_secret },
    body: JSON.stringify({ fields: { ...card, card: { ...card.card, last4: '4242' } } }),
  });
  t.equal(put.status, 200);
  await house.advance(new Date(periodEnd + 3 * DAY + 3 * 3600_000));
  const recovered = await waitFor(
    'umbrella cleared',
    async () => {
      const b = await billing(cp, umbrella);
      return b.past_due === false ? b : undefined;
    },
    30_000,
  );
  t.equal(recovered.notice, null);
  t.equal(accountOf(umbrella).payment_state, 'ok');
  t.equal((await billing(cp, soylent)).past_due, true, 'soylent still declines');

  // soylent's retries run out: new twins are refused until it pays.
  await house.advance(new Date(periodEnd + 17 * DAY));
  const delinquent = await waitFor(
    'soylent delinquent',
    async () => (accountOf(soylent).payment_state === 'delinquent' ? accountOf(soylent) : undefined),
    30_000,
  );
  t.equal(delinquent.subscription_status, 'unpaid');
  const refused = await cp.call('POST', '/environments', { token: soylent.token, body: { name: 'refused', twins: [{ twin: 'github' }] } });
  t.equal(refused.status, 402);
  t.match(refused.body.detail, /retries are over: new twins are refused/);
  t.equal((await cp.call('POST', `/environments/${during.body.id}/twins`, { token: soylent.token, body: { twin: 'slack' } })).status, 402);
  t.equal(
    (await cp.call('POST', '/environments', { token: umbrella.token, body: { name: 'fine', twins: [{ twin: 'github' }] } })).status,
    201,
    'umbrella is not affected',
  );

  // A new card: checkout, upgrade; the open invoice is paid with it and the account clears.
  const back = await upgradeWithCard(cp, soylent.token);
  t.match(back, { plan: 'paygo', past_due: false, notice: null });
  t.equal(accountOf(soylent).subscription_status, 'active');
  const invoices = (await house.records<any>('invoice')).filter(
    (i) => i.body.customer === accountOf(soylent).customer_id && i.body.billing_reason === 'subscription_cycle',
  );
  t.ok(invoices.length >= 1);
  t.ok(
    invoices.every((i) => i.body.status === 'paid' || i.body.status === 'draft'),
    'nothing left open',
  );
  t.equal(
    (await cp.call('POST', '/environments', { token: soylent.token, body: { name: 'again', twins: [{ twin: 'github' }] } })).status,
    201,
    'twins start again',
  );
});
