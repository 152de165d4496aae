// Webhook fault effects (issue 38 item 4) on the Stripe twin's signed webhooks: a request a fault
// strikes runs and answers as usual (marked with the fault), and the webhooks it causes are
// delivered `twice` (the same event, both signed), `late` (by the fault's delay), or
// `out_of_order` (overtaken by the twin's next webhook). Every delivery is verified with the
// `stripe` package's own `webhooks.constructEvent`, and the delivery records name the fault.

import t, { type Test } from 'tap';
import Stripe from 'stripe';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTwin, type RunningTwin } from '../helpers/twin.js';

interface Received {
  event: Stripe.Event;
  at: number;
}

let twin: RunningTwin;
let stripe: Stripe;
let receiver: Server;
let receiverUrl: string;
let secret = '';
const received: Received[] = [];

async function waitFor(pred: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${twin.url}/_twin/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

let n = 0;
const fault = (name: string, effect: Record<string, unknown>) => ({
  id: `flt_hook${++n}`,
  match: { method: 'POST', path: '/v1/customers', body: { name } },
  effect,
  probability: 1,
  created_at: '2026-03-02T08:00:00.000Z',
});

/** Customers' `customer.created` events received, in arrival order. */
const createdFor = (id: string) => received.filter((r) => r.event.type === 'customer.created' && (r.event.data.object as { id: string }).id === id);

t.before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      // Every delivery must carry a valid signature over its exact bytes.
      const event = stripe.webhooks.constructEvent(Buffer.concat(chunks).toString('utf8'), String(req.headers['stripe-signature']), secret);
      received.push({ event, at: Date.now() });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  twin = await startTwin('stripe');
  stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port: Number(new URL(twin.url).port), protocol: 'http', maxNetworkRetries: 0 });
  secret = (await stripe.webhookEndpoints.create({ url: receiverUrl, enabled_events: ['customer.created'] })).secret!;
});
t.teardown(async () => {
  await twin.close();
  await new Promise((r) => receiver.close(r));
});

async function setFaults(t: Test, faults: unknown[]): Promise<void> {
  const res = await admin('PUT', 'faults', { faults });
  t.equal(res.status, 200, await res.clone().text());
}

t.test('twice: the same signed event delivered two times', async (t) => {
  const twice = fault('Twice', { type: 'twice' });
  await setFaults(t, [twice]);
  const customer = await stripe.customers.create({ name: 'Twice' });
  t.equal(customer.lastResponse.headers['twin-fault'], `${twice.id} twice`, 'the answer names the fault');
  await waitFor(() => createdFor(customer.id).length >= 2);
  const both = createdFor(customer.id);
  t.equal(both.length, 2);
  t.equal(both[0]!.event.id, both[1]!.event.id, 'one event, delivered twice');
  const other = await stripe.customers.create({ name: 'Once' });
  await waitFor(() => createdFor(other.id).length >= 1);
  await twin.server.host.deliveries.idle();
  t.equal(createdFor(other.id).length, 1, 'a request the fault does not match is delivered once');
  const records = ((await (await admin('GET', 'records/delivery')).json()) as { body: { source_id: string; fault?: string } }[]).map((r) => r.body);
  const marked = records.filter((r) => r.source_id === both[0]!.event.id);
  t.equal(marked.length, 2, 'two delivery records');
  t.same(
    marked.map((r) => r.fault),
    [`${twice.id} twice`, `${twice.id} twice`],
    'each names the fault',
  );
});

t.test('late: delivered after the delay, overtaken by a later webhook', async (t) => {
  const late = fault('Late', { type: 'late', ms: 400 });
  await setFaults(t, [late]);
  const started = Date.now();
  const slow = await stripe.customers.create({ name: 'Late' });
  const prompt = await stripe.customers.create({ name: 'Prompt' });
  await waitFor(() => createdFor(slow.id).length === 1 && createdFor(prompt.id).length === 1);
  const [s] = createdFor(slow.id);
  const [p] = createdFor(prompt.id);
  t.ok(s!.at - started >= 400, `the late webhook left after its delay (${s!.at - started} ms)`);
  t.ok(p!.at < s!.at, 'the later request’s webhook arrived first');
});

t.test('out_of_order: held until the next webhook has gone', async (t) => {
  const held = fault('Held', { type: 'out_of_order' });
  await setFaults(t, [held]);
  const first = await stripe.customers.create({ name: 'Held' });
  await new Promise((r) => setTimeout(r, 200));
  t.equal(createdFor(first.id).length, 0, 'nothing delivered while no later webhook overtook it');
  const second = await stripe.customers.create({ name: 'Next' });
  await waitFor(() => createdFor(first.id).length === 1 && createdFor(second.id).length === 1);
  const order = received
    .filter((r) => [first.id, second.id].includes((r.event.data.object as { id: string }).id))
    .map((r) => (r.event.data.object as { id: string }).id);
  t.same(order, [second.id, first.id], 'the earlier event arrives after the later one');
  t.ok(createdFor(first.id)[0]!.event.created <= createdFor(second.id)[0]!.event.created, 'though it was created first');
});

t.test('a late fault without its delay is refused', async (t) => {
  const res = await admin('PUT', 'faults', { faults: [fault('X', { type: 'late' })] });
  t.equal(res.status, 400);
  t.match(await res.text(), /effect\.ms/);
});
