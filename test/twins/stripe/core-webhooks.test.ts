// Webhook endpoints and signed deliveries: CRUD through the official `stripe` package, a loopback
// receiver that verifies every delivery with `stripe.webhooks.constructEvent`, retries after a
// failing answer, and the attempts kept as the runtime's `delivery` records.

import t from 'tap';
import Stripe from 'stripe';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

process.env.TWIN_DELIVERY_BACKOFF_MS = '30,30,30';

interface Received {
  body: string;
  signature: string;
}

let twin: RunningTwin;
let stripe: Stripe;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let failNext = 0;

async function waitFor(pred: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(500).end('try again');
        return;
      }
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['stripe-signature']) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  twin = await startTwin('stripe');
  const port = Number(new URL(twin.url).port);
  stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
});
t.teardown(async () => {
  await twin.close();
  await new Promise((r) => receiver.close(r));
});

t.test('endpoint CRUD; the secret is shown once', async (t) => {
  const we = await stripe.webhookEndpoints.create({ url: 'http://127.0.0.1:9/x', enabled_events: ['customer.created'], description: 'crud' });
  t.match(we.id, /^we_/);
  t.match(we.secret!, /^whsec_/);
  t.equal(we.status, 'enabled');
  const got = await stripe.webhookEndpoints.retrieve(we.id);
  t.equal(got.secret, undefined, 'retrieve does not show the secret');
  const upd = await stripe.webhookEndpoints.update(we.id, { disabled: true, enabled_events: ['*'] });
  t.equal(upd.status, 'disabled');
  t.same(upd.enabled_events, ['*']);
  t.ok((await stripe.webhookEndpoints.list()).data.some((e) => e.id === we.id));
  t.same(await stripe.webhookEndpoints.del(we.id), { id: we.id, object: 'webhook_endpoint', deleted: true });
  const gone = await stripe.webhookEndpoints.retrieve(we.id).catch((e) => e);
  t.equal(gone.code, 'resource_missing');
  const bad = await stripe.webhookEndpoints.create({ url: 'not a url', enabled_events: ['*'] }).catch((e) => e);
  t.equal(bad.param, 'url');
});

t.test('signed deliveries verified by constructEvent, retried, kept as records', async (t) => {
  const we = await stripe.webhookEndpoints.create({ url: receiverUrl, enabled_events: ['customer.created', 'customer.updated'] });
  const secret = we.secret!;
  failNext = 2;
  const cus = await stripe.customers.create({ email: 'hook@example.com' });
  await stripe.customers.update(cus.id, { name: 'Hooked' });
  await stripe.products.create({ name: 'not subscribed' });
  await waitFor(() => received.length >= 2);
  const events = received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, secret));
  const types = events.map((e) => e.type).sort();
  t.same(types, ['customer.created', 'customer.updated'], 'only the enabled types arrive');
  const created = events.find((e) => e.type === 'customer.created')!;
  t.equal((created.data.object as Stripe.Customer).id, cus.id);
  const updated = events.find((e) => e.type === 'customer.updated')!;
  t.same(updated.data.previous_attributes, { name: null });
  const stored = await stripe.events.retrieve(created.id);
  t.equal(stored.pending_webhooks, 1);
  t.match(stored.request?.id, /^req_/);

  t.throws(() => stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, 'whsec_wrong'), 'a wrong secret fails verification');
  t.throws(() => stripe.webhooks.constructEvent(received[0]!.body + ' ', received[0]!.signature, secret), 'a changed body fails verification');

  const records = (await (await fetch(`${twin.url}/_twin/records/delivery`)).json()) as { body: any }[];
  const mine = records.map((r) => r.body).filter((d) => d.endpoint_id === we.id);
  t.equal(mine.length, 2);
  t.ok(mine.every((d) => d.status === 'succeeded'));
  const attempts = mine.map((d) => d.attempts.length).reduce((a, b) => a + b, 0);
  t.equal(attempts, 4, 'two failed attempts were retried');
  t.ok(mine.some((d) => d.attempts[0].status_code === 500));

  const delivered = await stripe.events.list({ delivery_success: true });
  t.same(delivered.data.map((e) => e.type).sort(), ['customer.created', 'customer.updated'], 'delivery_success filters by delivery records');
  const undelivered = await stripe.events.list({ delivery_success: false });
  t.equal(undelivered.data.length, 0);
});
