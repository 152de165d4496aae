// Bounded advance (issue 20): a long advance (three years of a daily subscription) answers 202 within a second with an Advance to follow;
// meanwhile the twin keeps answering provider requests (issue 33), at the instant its advance has
// reached, and the environment clock stays put; when it ends the environment clock and every twin clock are the
// same instant; a twin's refusal is reported (409) and leaves every clock aligned.

import t from 'tap';
import { advanceJobEnded, advanceSettled, startOrchestratedControlPlane, stripe, waitReady } from './helpers.js';

const cp = await startOrchestratedControlPlane({ defaultPlan: 'paygo' });
t.teardown(() => cp.stop());
const token = await cp.token({});

async function twinClocks(envId: string): Promise<string[]> {
  const o = cp.services.orchestration;
  return Promise.all(o.store.twinsOf(envId).map(async (t) => (await o.admin.health(t.address!, t.admin_secret)).clock));
}

t.test('a three-year advance of a daily subscription runs as a job', async (t) => {
  // Frozen: every instant below is exact (a living clock runs on between the reads).
  const created = await cp.call('POST', '/environments', {
    token,
    body: { name: 'long advance', twins: [{ twin: 'stripe' }, { twin: 'github' }], clock: 'frozen' },
  });
  const env = await waitReady(cp, token, created.body.id, 120_000);
  const twin = env.twins.find((x: { twin_slug: string }) => x.twin_slug === 'stripe');
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key as string;
  const product = (await stripe(twin.url, key, 'POST', '/v1/products', { name: 'Daily' })).body;
  const price = (await stripe(twin.url, key, 'POST', '/v1/prices', { product: product.id, unit_amount: '100', currency: 'usd', 'recurring[interval]': 'day' }))
    .body;
  const customer = (await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'daily@example.com' })).body;
  const pm = (await stripe(twin.url, key, 'POST', '/v1/payment_methods/pm_card_visa/attach', { customer: customer.id })).body;
  const sub = await stripe(twin.url, key, 'POST', '/v1/subscriptions', { customer: customer.id, 'items[0][price]': price.id, default_payment_method: pm.id });
  t.equal(sub.status, 200);

  const from = env.clock as string;
  const at = new Date(Date.parse(from) + 3 * 365 * 86_400_000).toISOString();
  const t0 = Date.now();
  const started = await cp.call('POST', `/twins/${twin.id}/advance`, { token, body: { at } });
  const answeredIn = Date.now() - t0;
  t.equal(started.status, 202, `answered 202 in ${answeredIn} ms`);
  t.ok(answeredIn < 3000, 'within the bound (800 ms, plus a loaded machine)');
  const location = started.headers.get('location')!;
  t.match(location, new RegExp(`^/environments/${env.id}/advances/[0-9a-f-]{36}$`));
  t.match(started.body, { environment_id: env.id, status: 'running', from, to: at, clock: from, failure: null, completed_at: null });

  // While it runs: the twin answers, its subscription partway through the years.
  const during = await fetch(`${twin.url}/v1/subscriptions/${sub.body.id}`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(during.status, 200, 'provider requests are answered while the advance runs');
  // The billing period is on the subscription's items at the account's default API version
  // (Stripe moved it there in 2025-03-31.basil).
  const partway = (await during.json()) as { items: { data: { current_period_start: number }[] } };
  const periodStart = partway.items.data[0]?.current_period_start;
  t.type(periodStart, 'number', 'the item carries its billing period');
  t.ok(periodStart! * 1000 >= Date.parse(from) - 86_400_000, 'at the instant the advance has reached');
  const written = await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'during@example.com' });
  t.equal(written.status, 200, 'writes too');
  t.equal((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock, from, 'the environment clock stays where it was');
  const again = await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at } });
  t.equal(again.status, 409, 'a second advance waits its turn');
  t.match(again.body.detail, location);
  t.equal((await cp.call('POST', `/environments/${env.id}/reset`, { token })).status, 409, 'so does a reset');
  t.equal((await cp.call('GET', location, { token })).body.status, 'running');

  const done = await advanceJobEnded(cp, token, location);
  t.match(done, { status: 'succeeded', clock: at, failure: null });
  t.ok(done.completed_at);
  t.equal((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock, at, 'the environment clock moved');
  t.same(await twinClocks(env.id), [at, at], 'every twin clock is the same instant');
  const invoices = await stripe(twin.url, key, 'GET', `/v1/invoices?customer=${customer.id}&limit=3`);
  t.equal(invoices.status, 200, 'the twin answers again');
  t.ok(invoices.body.data.length === 3 && invoices.body.has_more, 'years of invoices');

  // A twin that refuses (its clock is later): reported, and every clock aligned to the latest.
  const github = cp.services.orchestration.store.twinsOf(env.id).find((x) => x.twin_slug === 'github')!;
  const ahead = new Date(Date.parse(at) + 86_400_000);
  const moved = await cp.services.orchestration.admin.advanceAndWait(github.address!, github.admin_secret, ahead);
  t.ok(moved.ok);
  const refused = await advanceSettled(
    cp,
    token,
    await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: new Date(Date.parse(at) + 3_600_000).toISOString() } }),
  );
  t.equal(refused.status, 409, 'the refusal is the answer');
  t.match(refused.detail, new RegExp(`github twin ${github.id} could not advance: Cannot move the clock back`));
  t.notMatch(refused.detail, /127\.0\.0\.1|http:/, 'no internal address');
  t.equal((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock, ahead.toISOString(), 'the environment moved up to the latest twin');
  t.same(await twinClocks(env.id), [ahead.toISOString(), ahead.toISOString()], 'and so did the other twin');

  // A short advance: 200 {} at once, per environment and per twin.
  const soon = new Date(ahead.getTime() + 60_000).toISOString();
  const short = await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: soon } });
  if (short.status === 202) t.comment('a loaded machine: the short advance became a job');
  t.equal((await advanceSettled(cp, token, short)).status, 200);
  if (short.status === 200) t.same(short.body, {});
  t.same(await twinClocks(env.id), [soon, soon]);
  t.equal((await cp.call('GET', `/environments/${env.id}/advances/00000000-0000-4000-8000-000000000000`, { token })).status, 404);
  const other = await cp.token({ org: 'someone-else' });
  t.equal((await cp.call('GET', location, { token: other })).status, 404, 'another organization cannot see the advance');
});
