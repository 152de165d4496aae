// Stripe API v2 billing through the official SDK (`stripe.v2.billing.*`): meter events one at a
// time and through a meter event session's stream (its token is the stream's key; an expired one
// is refused with `temporary_session_expired`), an adjustment that cancels an event; all reach the
// v1 meter, summed by `listEventSummaries`.

import t from 'tap';
import Stripe from 'stripe';
import { START, customerWithCard, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;
const now = Math.floor(START.getTime() / 1000);
const url = new URL(bt.twin.url);

t.test('v2 meter events, the stream and a cancel, summed by the v1 meter', async (t) => {
  const meter = await stripe.billing.meters.create({ display_name: 'Tokens', event_name: 'tokens', default_aggregation: { formula: 'sum' } });
  const { customer } = await customerWithCard(stripe);

  const one = await stripe.v2.billing.meterEvents.create({
    event_name: 'tokens',
    payload: { stripe_customer_id: customer.id, value: '25' },
    identifier: 'ev-1',
  });
  t.equal(one.object, 'v2.billing.meter_event');
  t.equal(one.identifier, 'ev-1');
  t.match(one.timestamp, /^\d{4}-\d{2}-\d{2}T/, 'v2 times are RFC 3339 strings');
  t.same(one.payload, { stripe_customer_id: customer.id, value: '25' });
  const dup = await stripe.v2.billing.meterEvents
    .create({ event_name: 'tokens', payload: { stripe_customer_id: customer.id, value: '1' }, identifier: 'ev-1' })
    .catch((e) => e);
  t.equal(dup.statusCode, 400, 'an identifier is taken for a day');

  const session = await stripe.v2.billing.meterEventSession.create();
  t.equal(session.object, 'v2.billing.meter_event_session');
  t.match(session.authentication_token, /^meter_session_/);
  t.equal(Date.parse(session.expires_at) - Date.parse(session.created), 15 * 60_000);
  const streamClient = new Stripe(session.authentication_token, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  await streamClient.v2.billing.meterEventStream.create({
    events: [
      { event_name: 'tokens', payload: { stripe_customer_id: customer.id, value: '10' }, identifier: 'ev-2' },
      { event_name: 'tokens', payload: { stripe_customer_id: customer.id, value: '5' }, identifier: 'ev-3' },
    ],
  });
  const notForV1 = await streamClient.customers.list().catch((e) => e);
  t.equal(notForV1.statusCode, 401, 'the session token is the stream’s key only');

  const summed = async () =>
    (await stripe.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: now - 3600, end_time: now + 3600 })).data[0]!
      .aggregated_value;
  t.equal(await summed(), 40);

  const adjustment = await stripe.v2.billing.meterEventAdjustments.create({ event_name: 'tokens', type: 'cancel', cancel: { identifier: 'ev-2' } });
  t.equal(adjustment.object, 'v2.billing.meter_event_adjustment');
  t.equal(adjustment.type, 'cancel');
  t.equal(await summed(), 30, 'the canceled event no longer counts');
  const unknown = await stripe.v2.billing.meterEventAdjustments
    .create({ event_name: 'tokens', type: 'cancel', cancel: { identifier: 'nope' } })
    .catch((e) => e);
  t.equal(unknown.statusCode, 400);
  const v1Cancel = await stripe.billing.meterEventAdjustments.create({ event_name: 'tokens', type: 'cancel', cancel: { identifier: 'ev-3' } });
  t.equal(v1Cancel.object, 'billing.meter_event_adjustment');
  t.equal(await summed(), 25);

  // Sixteen minutes later the session's token no longer holds.
  const advanced = await fetch(`${bt.twin.url}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: new Date(START.getTime() + 16 * 60_000).toISOString(), wait_ms: 60_000 }),
  });
  t.equal(advanced.status, 200);
  const expired = await streamClient.v2.billing.meterEventStream
    .create({ events: [{ event_name: 'tokens', payload: { stripe_customer_id: customer.id, value: '1' } }] })
    .catch((e) => e);
  t.type(expired, Stripe.errors.TemporarySessionExpiredError);
  t.equal(expired.statusCode, 401);
});
