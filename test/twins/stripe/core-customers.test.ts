// Customers through the official `stripe` package: CRUD, list pagination (manual and the SDK's
// auto-pagination), search, metadata rules, errors (404, 400 unknown parameter, 401 bad key),
// Request-Id, idempotency replay and conflict, nested expand.

import t from 'tap';
import Stripe from 'stripe';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

let twin: RunningTwin;
let stripe: Stripe;

function client(key: string): Stripe {
  const port = Number(new URL(twin.url).port);
  return new Stripe(key, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
}

t.before(async () => {
  twin = await startTwin('stripe', { clockStart: new Date('2026-01-01T00:00:00Z') });
  stripe = client(twin.apiKey);
});
t.teardown(() => twin.close());

t.test('create, retrieve, update, delete', async (t) => {
  const c = await stripe.customers.create({ email: 'ann@example.com', name: 'Ann', metadata: { plan: 'pro' } });
  t.match(c.id, /^cus_[A-Za-z0-9]{14}$/);
  t.equal(c.object, 'customer');
  t.equal(c.livemode, false);
  t.equal(c.created, Date.parse('2026-01-01T00:00:00Z') / 1000, 'created comes from the environment clock');
  t.equal(c.balance, 0);
  t.same(c.metadata, { plan: 'pro' });
  t.equal(c.invoice_settings.default_payment_method, null);

  const got = await stripe.customers.retrieve(c.id);
  t.equal((got as Stripe.Customer).email, 'ann@example.com');

  const upd = await stripe.customers.update(c.id, { name: 'Ann B', metadata: { plan: '', seats: '3' }, description: 'vip' });
  t.equal(upd.name, 'Ann B');
  t.same(upd.metadata, { seats: '3' }, 'empty value removes a key, others merge');
  t.equal(upd.description, 'vip');
  const cleared = await stripe.customers.update(c.id, { description: '' });
  t.equal(cleared.description, null, 'empty string unsets a field');

  const del = await stripe.customers.del(c.id);
  t.same(del, { id: c.id, object: 'customer', deleted: true });
  const after = await stripe.customers.retrieve(c.id);
  t.equal((after as Stripe.DeletedCustomer).deleted, true, 'retrieve answers the deleted stub');
  const gone = await stripe.customers.update(c.id, { name: 'x' }).catch((e) => e);
  t.match(gone, { type: 'StripeInvalidRequestError', code: 'resource_missing', statusCode: 404 });
});

t.test('list pagination and auto-pagination, newest first', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) ids.push((await stripe.customers.create({ email: `page${i}@example.com` })).id);
  const first = await stripe.customers.list({ limit: 10 });
  t.equal(first.object, 'list');
  t.equal(first.url, '/v1/customers');
  t.equal(first.data.length, 10);
  t.equal(first.has_more, true);
  t.equal(first.data[0]!.id, ids[24], 'newest first');
  const second = await stripe.customers.list({ limit: 10, starting_after: first.data[9]!.id });
  t.equal(second.data[0]!.id, ids[14]);
  const back = await stripe.customers.list({ limit: 5, ending_before: second.data[0]!.id });
  t.same(
    back.data.map((c) => c.id),
    first.data.slice(5).map((c) => c.id),
  );
  t.equal(back.has_more, true);

  const seen: string[] = [];
  for await (const c of stripe.customers.list({ limit: 7 })) seen.push(c.id);
  for (const id of ids) t.ok(seen.includes(id), `auto-pagination reached ${id}`);
  t.equal(new Set(seen).size, seen.length, 'no duplicates across pages');

  const byEmail = await stripe.customers.list({ email: 'page3@example.com' });
  t.same(
    byEmail.data.map((c) => c.id),
    [ids[3]],
  );

  t.match(await stripe.customers.list({ limit: 101 }).catch((e) => e), { statusCode: 400, param: 'limit' });
  t.match(await stripe.customers.list({ starting_after: 'cus_missing' }).catch((e) => e), { code: 'resource_missing', param: 'starting_after' });
});

t.test('search', async (t) => {
  const a = await stripe.customers.create({ email: 'zed@search.io', name: 'Zed Alpha', metadata: { tier: 'gold' } });
  const b = await stripe.customers.create({ email: 'yan@search.io', name: 'Yan Beta', metadata: { tier: 'silver' } });
  const byEmail = await stripe.customers.search({ query: "email:'zed@search.io'" });
  t.equal(byEmail.object, 'search_result');
  t.same(
    byEmail.data.map((c) => c.id),
    [a.id],
  );
  const byName = await stripe.customers.search({ query: "name~'beta'" });
  t.same(
    byName.data.map((c) => c.id),
    [b.id],
  );
  const byMeta = await stripe.customers.search({ query: "metadata['tier']:'gold' AND email~'search.io'" });
  t.same(
    byMeta.data.map((c) => c.id),
    [a.id],
  );
  const either = await stripe.customers.search({ query: "metadata['tier']:'gold' OR metadata['tier']:'silver'", limit: 1 });
  t.equal(either.data.length, 1);
  t.equal(either.has_more, true);
  t.type(either.next_page, 'string');
  const page2 = await stripe.customers.search({ query: "metadata['tier']:'gold' OR metadata['tier']:'silver'", limit: 1, page: either.next_page! });
  t.equal(page2.has_more, false);
  t.not(page2.data[0]!.id, either.data[0]!.id);
  const all: string[] = [];
  for await (const c of stripe.customers.search({ query: "email~'search.io'", limit: 1 })) all.push(c.id);
  t.same(all.sort(), [a.id, b.id].sort(), 'SDK auto-pagination follows next_page');
  t.match(await stripe.customers.search({ query: "bogus:'x'" }).catch((e) => e), { statusCode: 400, param: 'query' });
});

t.test('errors as Stripe shapes them', async (t) => {
  const missing = await stripe.customers.retrieve('cus_doesnotexist').catch((e) => e);
  t.equal(missing.type, 'StripeInvalidRequestError');
  t.equal(missing.statusCode, 404);
  t.equal(missing.code, 'resource_missing');
  t.equal(missing.message, "No such customer: 'cus_doesnotexist'");
  t.equal(missing.param, 'id');
  t.equal(missing.raw.doc_url, 'https://stripe.com/docs/error-codes/resource-missing');
  t.match(missing.requestId, /^req_/);

  const unknown = await stripe.customers.create({ nickname: 'x' } as any).catch((e) => e);
  t.equal(unknown.statusCode, 400);
  t.equal(unknown.code, 'parameter_unknown');
  t.equal(unknown.message, 'Received unknown parameter: nickname');
  const nested = await stripe.customers.create({ invoice_settings: { colour: 'red' } } as any).catch((e) => e);
  t.equal(nested.param, 'invoice_settings[colour]');

  const badEmail = await stripe.customers.create({ email: 'not-an-email' }).catch((e) => e);
  t.equal(badEmail.statusCode, 400);
  t.equal(badEmail.param, 'email');

  const longKey = await stripe.customers.create({ metadata: { ['k'.repeat(41)]: 'v' } }).catch((e) => e);
  t.equal(longKey.statusCode, 400);
  t.match(longKey.message, /Metadata keys can have up to 40 characters/);
  const longValue = await stripe.customers.create({ metadata: { k: 'v'.repeat(501) } }).catch((e) => e);
  t.match(longValue.message, /up to 500 characters/);
  const many: Record<string, string> = {};
  for (let i = 0; i < 51; i++) many[`k${i}`] = 'v';
  t.match((await stripe.customers.create({ metadata: many }).catch((e) => e)).message, /up to 50 metadata keys/);

  const wrong = client('sk_test_thisIsNotTheKey1234');
  const auth = await wrong.customers.list().catch((e) => e);
  t.equal(auth.statusCode, 401);
  t.equal(auth.type, 'StripeAuthenticationError');
  t.match(auth.message, /^Invalid API Key provided: sk_test_\*+1234$/);

  const res = await fetch(`${twin.url}/v1/nothing_here`, { headers: { authorization: `Bearer ${twin.apiKey}` } });
  t.equal(res.status, 404);
  const body = await res.json();
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /^Unrecognized request URL \(GET: \/v1\/nothing_here\)/);
  t.match(res.headers.get('request-id'), /^req_[A-Za-z0-9]{14}$/);

  const noKey = await fetch(`${twin.url}/v1/customers`);
  t.equal(noKey.status, 401);
  t.match((await noKey.json()).error.message, /You did not provide an API key/);
  t.ok(noKey.headers.get('request-id'));
});

t.test('a rejected request leaves nothing behind', async (t) => {
  const before = (await stripe.customers.list({ limit: 100 })).data.length;
  await stripe.customers.create({ email: 'x@y.zz', payment_method: 'pm_nope' }).catch(() => undefined);
  const after = (await stripe.customers.list({ limit: 100 })).data.length;
  t.equal(after, before, 'no half-created customer');
});

t.test('idempotency', async (t) => {
  const key = 'idem-key-1';
  const r1 = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
  const raw = await fetch(`${twin.url}/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
    body: 'email=idem%40example.com',
  });
  t.equal(raw.status, 200);
  t.equal(raw.headers.get('idempotent-replayed'), 'true');
  t.equal((await raw.json()).id, r1.id, 'same key and parameters replay the same object');
  const r2 = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
  t.equal(r2.id, r1.id);
  t.equal(r2.lastResponse.headers['idempotent-replayed'], 'true');
  const conflict = await stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: key }).catch((e) => e);
  t.equal(conflict.type, 'StripeIdempotencyError');
  t.equal(conflict.statusCode, 400);
  t.match(conflict.message, /same parameters they were first used with/);
  const list = await stripe.customers.list({ email: 'idem@example.com' });
  t.equal(list.data.length, 1, 'only one customer was created');
});

t.test('expand', async (t) => {
  const c = await stripe.customers.create({ email: 'exp@example.com' });
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: c.id });
  await stripe.customers.update(c.id, { invoice_settings: { default_payment_method: pm.id } });
  const expanded = await stripe.customers.retrieve(c.id, { expand: ['invoice_settings.default_payment_method'] });
  const dpm = (expanded as Stripe.Customer).invoice_settings.default_payment_method as Stripe.PaymentMethod;
  t.equal(dpm.id, pm.id);
  t.equal(dpm.card?.last4, '4242');
  const pms = await stripe.paymentMethods.list({ customer: c.id, expand: ['data.customer'] });
  t.equal((pms.data[0]!.customer as Stripe.Customer).email, 'exp@example.com', 'expand through a list');
  const bad = await stripe.customers.retrieve(c.id, { expand: ['email'] }).catch((e) => e);
  t.equal(bad.statusCode, 400);
  const stored = await stripe.customers.retrieve(c.id);
  t.equal((stored as Stripe.Customer).invoice_settings.default_payment_method, pm.id, 'the stored object keeps the id');
});

t.test('records are the API objects: the records endpoint lists them and a PUT changes the answer', async (t) => {
  const c = await stripe.customers.create({ email: 'rec@example.com', name: 'Before' });
  const listed = (await (await fetch(`${twin.url}/_twin/records/customer`)).json()) as { external_id: string; body: any }[];
  const rec = listed.find((r) => r.external_id === c.id);
  t.ok(rec, 'the customer is a record');
  t.same(rec!.body, JSON.parse(JSON.stringify(c)), 'the record body is exactly what the API returned');
  const put = await fetch(`${twin.url}/_twin/records/customer/${c.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { ...rec!.body, name: 'After', balance: -500 } }),
  });
  t.equal(put.status, 200);
  const after = (await stripe.customers.retrieve(c.id)) as Stripe.Customer;
  t.equal(after.name, 'After');
  t.equal(after.balance, -500);
  const events = (await (await fetch(`${twin.url}/_twin/records/event`)).json()) as { body: any }[];
  t.ok(
    events.some((e) => e.body.type === 'customer.created' && e.body.data.object.id === c.id),
    'events are records too',
  );
});
