// Checkout and upgrade against the house Stripe twin: every status of the upgrade endpoint, the
// hosted page driven by form posts, idempotence, and 502 while the processor is down.

import t from 'tap';
import { createServer } from 'node:net';
import { CARD_OK, checkoutWithCard, payOnHostedPage, startBillingControlPlane, waitBillingReady } from './helpers.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('every status of the upgrade endpoint', async (t) => {
  const cp = await startBillingControlPlane();
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  const member = await cp.token({ email: 'bob@example.com', org: 'acme', role: 'member' });
  const key = (await cp.call('POST', '/organizations/current/api-keys', { token: admin, body: { name: 'ci' } })).body.token;
  const before = await waitBillingReady(cp, admin);
  t.match(before, { plan: 'free', ready: true, upgrade_available: true, remaining_credit_cents: 0, invoice: null, past_due: false, notice: null });

  const upgrade = (token: string | undefined, body: unknown) => cp.call('POST', '/organizations/current/billing/upgrade', { token, body });
  t.equal((await upgrade(undefined, { checkout_session: 'cs_x' })).status, 401, 'no credential');
  t.equal((await upgrade(member, { checkout_session: 'cs_x' })).status, 403, 'a member');
  const byKey = await upgrade(key, { checkout_session: 'cs_x' });
  t.equal(byKey.status, 403, 'an API key, even an admin’s');
  t.match(byKey.body.detail, /identity-provider session/);
  const empty = await upgrade(admin, { checkout_session: '' });
  t.equal(empty.status, 422);
  t.match(empty.body.detail[0], { type: 'string_too_short', loc: ['body', 'checkout_session'], ctx: { min_length: 1 } });
  t.equal((await upgrade(admin, {})).body.detail[0].type, 'missing');
  t.equal((await upgrade(admin, { checkout_session: 'cs_x', plan: 'gold' })).body.detail[0].type, 'extra_forbidden');

  // Malformed ids are the request's fault, never "the processor could not be reached".
  for (const malformed of ['\ud800', 'cs_test_a/../../v1/customers', 'cs_test_%zz', ' ', 'cs_' + 'x'.repeat(100_000), 'ch_123']) {
    const res = await upgrade(admin, { checkout_session: malformed });
    t.equal(res.status, 422, `${JSON.stringify(malformed.slice(0, 30))}: 422`);
    t.match(res.body.detail[0], { loc: ['body', 'checkout_session'], type: /^string_(pattern_mismatch|too_long)$/ });
  }

  const unknown = await upgrade(admin, { checkout_session: 'cs_test_unknown' });
  t.equal(unknown.status, 409, 'a session the processor does not know');
  t.match(unknown.body.detail, /does not belong to this organization/);

  // Checkout: admin with a session only.
  t.equal((await cp.call('POST', '/organizations/current/billing/checkout', { token: key })).status, 403);
  t.equal((await cp.call('POST', '/organizations/current/billing/checkout', { token: member })).status, 403);
  const open = await cp.call('POST', '/organizations/current/billing/checkout', { token: admin });
  t.equal(open.status, 201);
  t.match(open.body, { checkout_session: /^cs_test_/, url: /^http:\/\/127\.0\.0\.1:\d+\/c\/pay\/cs_test_/ });
  const notComplete = await upgrade(admin, { checkout_session: open.body.checkout_session });
  t.equal(notComplete.status, 409, 'a session nobody paid yet');
  t.match(notComplete.body.detail, /not complete/);

  // Another organization's completed session.
  const globex = await cp.token({ email: 'grace@example.com', org: 'globex', role: 'admin' });
  await waitBillingReady(cp, globex);
  const theirs = await checkoutWithCard(cp, globex);
  const foreign = await upgrade(admin, { checkout_session: theirs });
  t.equal(foreign.status, 409, "another organization's session");
  t.match(foreign.body.detail, /does not belong to this organization/);
  t.equal((await cp.call('GET', '/organizations/current/billing', { token: admin })).body.plan, 'free', 'nothing changed');

  // The open session, paid now on its page.
  const paid = await payOnHostedPage(open.body.url, CARD_OK);
  t.equal(paid.status, 303, 'the hosted page redirects to the success URL');
  t.match(paid.location, new RegExp(`/billing/checkout/return\\?checkout_session=${open.body.checkout_session}$`));
  const back = await fetch(paid.location!);
  t.equal(back.status, 200, 'the return page answers without a credential');
  t.match(await back.text(), open.body.checkout_session);

  const done = await upgrade(admin, { checkout_session: open.body.checkout_session });
  t.equal(done.status, 200);
  t.match(done.body, {
    plan: 'paygo',
    max_environment_seconds: null,
    max_parallel_twins: null,
    ai_generation_enabled: true,
    ready: true,
    upgrade_available: true,
    remaining_credit_cents: 0,
    past_due: false,
    notice: null,
    invoice: { total_cents: 0, credits_applied_cents: 0, line_items: [] },
  });
  t.ok(Date.parse(done.body.invoice.period_end) > Date.parse(done.body.invoice.period_start), 'the current period');

  const again = await upgrade(admin, { checkout_session: open.body.checkout_session });
  t.equal(again.status, 200, 'repeating the upgrade is harmless');
  t.same(again.body, done.body);
  const subscriptions = await cp.services.billing.house!.records<{ customer: string; status: string }>('subscription');
  const account = cp.services.billing.store.account(
    cp.services.identity.organization((await cp.call('GET', '/organizations/current', { token: admin })).body.id)!.id,
  )!;
  t.equal(subscriptions.filter((s) => s.body.customer === account.customer_id).length, 1, 'one subscription, however many upgrades');
  const customer = (await cp.services.billing.house!.records<any>('customer')).find((c) => c.external_id === account.customer_id)!;
  const session = (await cp.services.billing.house!.records<any>('checkout_session')).find((s) => s.external_id === open.body.checkout_session)!;
  const intent = (await cp.services.billing.house!.records<any>('setup_intent')).find((s) => s.external_id === session.body.setup_intent)!;
  t.equal(customer.body.invoice_settings.default_payment_method, intent.body.payment_method, "the checkout's card is the default");

  // The processor down: the summary still answers (processor side null), changes answer 502.
  await cp.services.billing.house!.close();
  const summary = await cp.call('GET', '/organizations/current/billing', { token: admin });
  t.equal(summary.status, 200);
  t.match(summary.body, { plan: 'paygo', ready: true, remaining_credit_cents: null, invoice: null });
  const down = await upgrade(admin, { checkout_session: open.body.checkout_session });
  t.equal(down.status, 502);
  t.match(down.body.detail, /could not be reached/);
  t.equal((await cp.call('POST', '/organizations/current/billing/checkout', { token: admin })).status, 502);
});

t.test('a Stripe that cannot be reached: checkout and upgrade answer 502, the summary 200', async (t) => {
  // A loopback port nobody listens on.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const cp = await startTestControlPlane({
    defaultPlan: 'free',
    paymentProcessor: 'stripe',
    stripeSecretKey: 'sk_test_unreachable0000',
    stripeApiBase: `http://127.0.0.1:${port}`,
  });
  t.teardown(() => cp.stop());
  const admin = await cp.token({});
  const summary = await cp.call('GET', '/organizations/current/billing', { token: admin });
  t.equal(summary.status, 200);
  t.match(summary.body, { plan: 'free', ready: false, upgrade_available: true, remaining_credit_cents: null, invoice: null });
  const checkout = await cp.call('POST', '/organizations/current/billing/checkout', { token: admin });
  t.equal(checkout.status, 502);
  t.same(Object.keys(checkout.body), ['detail']);
  const upgrade = await cp.call('POST', '/organizations/current/billing/upgrade', { token: admin, body: { checkout_session: 'cs_test_1' } });
  t.equal(upgrade.status, 502);
  t.notMatch(upgrade.text + checkout.text + summary.text, /sk_test_unreachable/, 'the key is in no answer');
});
