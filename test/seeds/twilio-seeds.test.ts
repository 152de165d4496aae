// Every Twilio suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and the `twilio` package reads the numbers, messages (with their final statuses),
// inbound texts, calls and Verify services it promised.

import t from 'tap';
import twilio from 'twilio';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('twilio', t.teardown.bind(t));

async function withTwilio(file: string, fn: (client: ReturnType<typeof twilio>, url: string) => Promise<void>): Promise<void> {
  const running = await startTwin('twilio', { seedFile: file });
  try {
    const { account_sid, api_key } = running.server.host.credential();
    const client = twilio(account_sid!, api_key);
    client.api.baseUrl = running.url;
    client.verify.baseUrl = running.url;
    await fn(client, running.url);
  } finally {
    await running.close();
  }
}

function countBy<T>(items: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of items) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

t.ok(twin.suggestions.length >= 5, 'at least five Twilio suggestions');

t.test('outbound texts: 20 messages, 3 undelivered, 2 failed, the rest delivered', async (t) => {
  await withTwilio(await seedFrom(twin.suggestions[0]!.prompt, 'texts'), async (client) => {
    const messages = await client.messages.list();
    t.equal(messages.length, 20);
    t.same(
      countBy(messages, (m) => m.status),
      { delivered: 15, undelivered: 3, failed: 2 },
    );
    t.ok(messages.filter((m) => m.status === 'undelivered').every((m) => m.errorCode === 30003));
  });
});

t.test('two numbers each with 6 messages', async (t) => {
  await withTwilio(await seedFrom(twin.suggestions[1]!.prompt, 'numbers'), async (client) => {
    const numbers = (await client.incomingPhoneNumbers.list()).filter((n) => n.phoneNumber !== '+15017122661');
    t.equal(numbers.length, 2);
    for (const n of numbers) t.equal((await client.messages.list({ from: n.phoneNumber })).length, 6);
  });
});

t.test('inbound conversation: 8 received, 5 sent', async (t) => {
  await withTwilio(await seedFrom(twin.suggestions[2]!.prompt, 'inbound'), async (client) => {
    const messages = await client.messages.list();
    t.same(
      countBy(messages, (m) => m.direction),
      { inbound: 8, 'outbound-api': 5 },
    );
    t.ok(messages.filter((m) => m.direction === 'inbound').every((m) => m.status === 'received' && m.to === '+15017122661'));
  });
});

t.test('call log: 12 calls, 3 busy, 2 unanswered, 7 completed', async (t) => {
  await withTwilio(await seedFrom(twin.suggestions[3]!.prompt, 'calls'), async (client) => {
    const calls = await client.calls.list();
    t.equal(calls.length, 12);
    t.same(
      countBy(calls, (c) => c.status),
      { completed: 7, busy: 3, 'no-answer': 2 },
    );
  });
});

t.test('verification backlog: a service with 6 verifications, 4 approved', async (t) => {
  await withTwilio(await seedFrom(twin.suggestions[4]!.prompt, 'verify'), async (client, url) => {
    const services = await client.verify.v2.services.list();
    t.equal(services.length, 1);
    // Verify lists no verifications: the records API holds them; the SDK fetches each.
    const records = (await (await fetch(`${url}/_twin/records/verification`)).json()) as { body: { sid: string } }[];
    t.equal(records.length, 6);
    const fetched = await Promise.all(records.map((r) => client.verify.v2.services(services[0]!.sid).verifications(r.body.sid).fetch()));
    t.same(
      countBy(fetched, (v) => v.status),
      { approved: 4, pending: 2 },
    );
  });
});
