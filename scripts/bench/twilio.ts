// Twilio twin: what a message costs, side by side in one run on one loopback twin (no gateway):
// `messages.create` with the SDK against a bare `accounts(sid).fetch()` (the floor of an SDK call),
// and one `advance` that runs the whole lifecycle (4 moves each) of N messages, per message.
//
//   node --import=tsx scripts/bench/twilio.ts [N=300]

import twilio from 'twilio';
import { startTwin } from '../../test/helpers/twin.js';

const n = Number(process.argv[2] ?? 300);
const start = new Date('2026-03-02T09:00:00Z');
const twin = await startTwin('twilio', { clockStart: start });
const { account_sid, api_key } = twin.server.host.credential();
const client = twilio(account_sid!, api_key);
client.api.baseUrl = twin.url;

async function timed(label: string, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await fn(i); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const per = (performance.now() - t0) / n;
  console.log(`${label}: ${per.toFixed(2)} ms per call`);
  return per;
}

const fetchMs = await timed('accounts(sid).fetch()', () => client.api.v2010.accounts(account_sid!).fetch());
const createMs = await timed('messages.create()', (i) =>
  client.messages.create({ to: `+1415555${String(1000 + i).slice(-4)}`, from: '+15017122661', body: `bench ${i}` }),
);
console.log(`create / fetch ratio: ${(createMs / fetchMs).toFixed(2)}`);

const pending = n + 20;
const t0 = performance.now();
await twin.advance(new Date(start.getTime() + 60_000));
const advanceMs = performance.now() - t0;
console.log(`advance over ${pending} messages (${pending * 3} moves): ${advanceMs.toFixed(0)} ms, ${(advanceMs / pending).toFixed(2)} ms per message`);
const delivered = await client.messages.list({ pageSize: 1000 });
console.log(`delivered: ${delivered.filter((m) => m.status === 'delivered').length} of ${delivered.length}`);
await twin.close();
