// One clock across twins (issue 38): one environment advance runs every twin's due lifecycle
// events in one global time order. Three twins listed Slack, Stripe, Twilio (the order the
// advance used to move them in, each all the way, one after the other) owe deliveries to one
// local receiver: Twilio status callbacks seconds after the start; Stripe webhooks when a trial
// ends two hours in (the invoice, the subscription's update) and when that invoice is paid an
// hour later (the subscription's update again); a Slack message scheduled two and a half hours in
// (its Events API callback). After one advance the receiver got them in time order: Twilio,
// Stripe, Slack, Stripe (twin by twin it would have been Slack, Stripe, Twilio).

import t from 'tap';
import Stripe from 'stripe';
import { LogLevel, WebClient } from '@slack/web-api';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { advanceSettled, startOrchestratedControlPlane, waitFor, waitReady } from './helpers.js';

const START = Date.parse('2026-03-02T08:00:00.000Z');
const HOUR = 3_600_000;

t.test('one advance delivers the events of three twins in time order', async (t) => {
  // Who called, in arrival order (a Slack url_verification is answered, not counted).
  const arrivals: string[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const source = req.url!.slice(1);
      if (source === 'slack' && body.includes('"url_verification"')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: JSON.parse(body).challenge }));
        return;
      }
      arrivals.push(source);
      res.writeHead(200).end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  t.teardown(() => receiver.close());
  const base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ email: 'ada@clock.example.com', org: 'clock', role: 'admin' });
  await cp.call('GET', '/environments', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'clock'").run();
  const created = await cp.call('POST', '/environments', {
    token,
    body: {
      name: 'one clock',
      clock: 'frozen',
      clock_start: new Date(START).toISOString(),
      twins: [{ twin: 'slack' }, { twin: 'stripe' }, { twin: 'twilio' }],
    },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const env = await waitReady(cp, token, created.body.id);
  const twin = (slug: string) => env.twins.find((x: any) => x.twin_slug === slug);
  const credential = async (slug: string) => (await cp.call('POST', `/twins/${twin(slug).id}/credential`, { token })).body;

  // Slack: events to the receiver; a message scheduled two and a half hours in.
  const slack = new WebClient((await credential('slack')).api_key, {
    slackApiUrl: `${twin('slack').url}/api/`,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  await slack.apiCall('twin.settings.set', { setting: 'events', value: { request_url: `${base}/slack` } });
  const channel = (await slack.conversations.create({ name: 'ordered' })).channel!.id!;
  await slack.chat.scheduleMessage({ channel, text: 'at three hours', post_at: Math.floor((START + 2.5 * HOUR) / 1000) });

  // Stripe: webhooks to the receiver; a trial ending two hours in.
  const stripeUrl = new URL(twin('stripe').url);
  const stripe = new Stripe((await credential('stripe')).api_key, { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http' });
  await stripe.webhookEndpoints.create({ url: `${base}/stripe`, enabled_events: ['customer.subscription.updated', 'invoice.created'] });
  const customer = await stripe.customers.create({ name: 'Trial' });
  const price = await stripe.prices.create({ currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' }, product_data: { name: 'Plan' } });
  await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_end: Math.floor((START + 2 * HOUR) / 1000) });

  // Twilio: a message whose status callbacks come seconds after it is created.
  const { api_key: authToken, account_sid: accountSid } = await credential('twilio');
  const sent = await fetch(`${twin('twilio').url}/2010-04-01/Accounts/${accountSid}/Messages.json`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
    body: new URLSearchParams({ To: '+14155550100', From: '+15017122661', Body: 'shipped', StatusCallback: `${base}/twilio` }),
  });
  t.equal(sent.status, 201, await sent.clone().text());

  // Nothing was due yet: whatever the setup delivered has arrived (none of it is counted).
  await new Promise((r) => setTimeout(r, 500));
  arrivals.length = 0;

  const advanced = await advanceSettled(
    cp,
    token,
    await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: new Date(START + 4 * HOUR).toISOString() } }),
  );
  t.equal(advanced.status, 200, JSON.stringify(advanced.body));
  await waitFor('every twin delivered', async () => ['twilio', 'stripe', 'slack'].every((s) => arrivals.includes(s)));
  const order = arrivals.filter((s, i) => s !== arrivals[i - 1]);
  t.ok(arrivals.length >= 3, `deliveries arrived: ${arrivals.join(', ')}`);
  t.same(order, ['twilio', 'stripe', 'slack', 'stripe'], 'in time order across the twins, not in the order the environment lists them');
});
