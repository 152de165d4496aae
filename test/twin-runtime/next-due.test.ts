// The probe an environment advance orders its twins' events by (issue 38, one clock): a twin says
// when its first lifecycle event falls due by an instant, and the probe changes nothing (its
// lifecycle runs to that event's clock move in a transaction rolled back).

import t from 'tap';
import { LogLevel, WebClient } from '@slack/web-api';
import { startTwin } from '../helpers/twin.js';

const START = Date.parse('2026-03-02T08:00:00.000Z');
const HOUR = 3_600_000;

t.test('next-due: the first scheduled message, and nothing changed', async (t) => {
  const twin = await startTwin('slack', { clockStart: new Date(START) });
  t.teardown(() => twin.close());
  const slack = new WebClient(twin.apiKey, { slackApiUrl: `${twin.url}/api/`, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
  const channel = (await slack.conversations.create({ name: 'due' })).channel!.id!;
  for (const hours of [3, 1, 2]) await slack.chat.scheduleMessage({ channel, text: `at ${hours}`, post_at: (START + hours * HOUR) / 1000 });
  const probe = async (to: number) => {
    const res = await fetch(`${twin.url}/_twin/next-due`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: new Date(to).toISOString() }),
    });
    t.equal(res.status, 200);
    return ((await res.json()) as { at: string | null }).at;
  };
  t.equal(await probe(START + 4 * HOUR), new Date(START + HOUR).toISOString(), 'the earliest event');
  t.equal(await probe(START + HOUR / 2), null, 'none due by then');
  t.equal(await probe(START + 4 * HOUR), new Date(START + HOUR).toISOString(), 'asked again: the same (the probe ran nothing)');
  const scheduled = await slack.chat.scheduledMessages.list({ channel });
  t.equal(scheduled.scheduled_messages?.length, 3, 'every message still scheduled');
  t.equal(((await (await fetch(`${twin.url}/_twin/health`)).json()) as { clock: string }).clock, new Date(START).toISOString(), 'the clock did not move');
  t.same((await slack.conversations.history({ channel })).messages, [], 'nothing posted');

  await twin.advance(new Date(START + 1.5 * HOUR));
  t.equal(await probe(START + 4 * HOUR), new Date(START + 2 * HOUR).toISOString(), 'after an advance: the next one');
  const bad = await fetch(`${twin.url}/_twin/next-due`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"soon"}' });
  t.equal(bad.status, 400);
});
