// Usage metering end to end: with TWINS_USAGE_INTERVAL_S=1 the draft invoice fills with the
// twin-hours and AI generations used after the upgrade (nothing from before), and customer credit
// is applied to it.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { startBillingControlPlane, upgradeWithCard, waitBillingReady, waitFor } from './helpers.js';
import { waitReady } from '../orchestration/helpers.js';

t.test('with TWINS_USAGE_INTERVAL_S=1 the draft invoice shows twin-hours of the twins that ran after the upgrade', async (t) => {
  const cp = await startBillingControlPlane({ usageIntervalSeconds: 1 });
  t.teardown(() => cp.stop());
  const admin = await cp.token({ org: 'hooli' });
  await waitBillingReady(cp, admin);
  // A twin that ran and stopped before the upgrade is never charged.
  const before = await cp.call('POST', '/environments', { token: admin, body: { name: 'before', twins: [{ twin: 'slack' }] } });
  await waitReady(cp, admin, before.body.id, 60_000);
  t.equal((await cp.call('DELETE', `/environments/${before.body.id}`, { token: admin })).status, 204);

  await upgradeWithCard(cp, admin);
  // Explicit assertions are no AI generation; an outcome compiled from words is one (under its first twin).
  const explicit = {
    name: 'explicit',
    twins: ['stripe'],
    assertions: [{ says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{customer}' } }],
  };
  t.equal((await cp.call('POST', '/tests', { token: admin, body: explicit })).status, 201);
  const compiled = await cp.call('POST', '/tests', {
    token: admin,
    body: { name: 'words', twins: ['github', 'stripe'], outcome: 'The agent refunded charge ch_dup exactly once and never deleted a customer.' },
  });
  t.equal(compiled.status, 201);
  const env = await cp.call('POST', '/environments', {
    token: admin,
    body: { name: 'after', twins: [{ twin: 'stripe' }, { twin: 'stripe' }, { twin: 'github' }] },
  });
  await waitReady(cp, admin, env.body.id, 60_000);
  const summary = await waitFor(
    'twin-hour lines',
    async () => {
      const res = await cp.call('GET', '/organizations/current/billing', { token: admin });
      const lines: { quantity: number }[] = res.body.invoice?.line_items ?? [];
      // All three twins' first hours and the compilation reported (a pass may see them one at a time).
      return lines.reduce((n, l) => n + l.quantity, 0) === 4 ? res.body : undefined;
    },
    60_000,
  );
  const lines = [...summary.invoice.line_items].sort((a: any, b: any) => a.name.localeCompare(b.name));
  t.same(lines, [
    { name: 'GitHub AI generations', total_cents: 20, twin: 'github', quantity: 1, unit_price_cents: 20 },
    { name: 'GitHub twin-hours', total_cents: 5, twin: 'github', quantity: 1, unit_price_cents: 5 },
    { name: 'Stripe twin-hours', total_cents: 10, twin: 'stripe', quantity: 2, unit_price_cents: 5 },
  ]);
  t.equal(summary.invoice.total_cents, 35);
  t.equal(summary.remaining_credit_cents, 0);
  t.notOk(
    lines.some((l: any) => l.twin === 'slack'),
    'the twin that ran before the upgrade is not on it',
  );

  // Credit on the customer's balance is applied to the draft and what is left is spendable.
  const orgId = (await cp.call('GET', '/organizations/current', { token: admin })).body.id;
  const account = cp.services.billing.store.account(orgId)!;
  const state = JSON.parse(readFileSync(cp.services.billing.house!.stateFile, 'utf8'));
  const res = await fetch(`${state.url}/v1/customers/${account.customer_id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${state.api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'balance=-100',
  });
  t.equal(res.status, 200);
  const credited = (await cp.call('GET', '/organizations/current/billing', { token: admin })).body;
  t.equal(credited.invoice.credits_applied_cents, 35);
  t.equal(credited.remaining_credit_cents, 65);
});
