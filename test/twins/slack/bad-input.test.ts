// Every method answers bad input with Slack's `{ok:false, error}` on HTTP 200, never a 500.

import t from 'tap';
import { METHODS } from '../../../twins/slack/routes/index.js';
import { startSlack } from './slack-client.js';

const slack = await startSlack();
t.teardown(() => slack.twin.close());

const garbage: Record<string, string>[] = [
  {},
  { channel: 'C0NOPE00000', ts: 'abc', timestamp: 'x', user: 'nobody', users: ',,,', limit: 'many', cursor: '%%%', name: 'Bad Name!' },
  { channel: '#general', blocks: '{not json', text: 'x', thread_ts: 'soon', post_at: 'tomorrow', latest: 'x', oldest: 'y' },
  { channel: '#general', attachments: '"a string"', metadata: '[', text: 'x', scheduled_message_id: 'Q1', setting: 'rate_limit', value: '[1,2]' },
];

t.test('no method answers a 500 or a non-Slack body', async (t) => {
  for (const method of Object.keys(METHODS)) {
    for (const args of garbage) {
      const res = await fetch(`${slack.twin.url}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${slack.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(args).toString(),
      });
      const body = (await res.json()) as { ok: boolean; error?: string };
      t.equal(res.status, 200, `${method} ${JSON.stringify(args)} → 200`);
      t.equal(typeof body.ok, 'boolean', `${method} answers ok`);
      if (!body.ok) t.match(body.error, /^[a-z_]+$/, `${method} names its error`);
    }
  }
  // JSON bodies with wrong types are refused too.
  const res = await fetch(`${slack.twin.url}/api/chat.postMessage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${slack.twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: { id: 'C1' }, text: ['a'] }),
  });
  t.same(await res.json(), {
    ok: false,
    error: 'invalid_arguments',
    response_metadata: { messages: ['[ERROR] must provide a string for field: text'] },
  });
});
