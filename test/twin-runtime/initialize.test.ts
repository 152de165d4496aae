// A twin's starting state exists from its first instant (and again after a reset), so the records
// endpoints show it before any provider call.

import t from 'tap';
import { startTwin } from '../helpers/twin.js';

async function records(url: string, resource: string): Promise<{ external_id: string }[]> {
  return (await (await fetch(`${url}/_twin/records/${resource}`)).json()) as { external_id: string }[];
}

t.test('slack and github start with their documented workspace', async (t) => {
  const slack = await startTwin('slack');
  t.teardown(() => slack.close());
  const channels = await records(slack.url, 'channel');
  t.ok(channels.length >= 2, 'slack: #general and #random exist before any call');
  t.equal((await records(slack.url, 'team')).length, 1, 'slack: one team');

  const github = await startTwin('github');
  t.teardown(() => github.close());
  t.ok(
    (await records(github.url, 'user')).some((r) => r.external_id === 'octocat'),
    'github: the key owner exists before any call',
  );

  const reset = await fetch(`${slack.url}/_twin/reset`, { method: 'POST' });
  t.equal(reset.status, 200);
  t.same(
    (await records(slack.url, 'channel')).map((c) => c.external_id),
    channels.map((c) => c.external_id),
    'reset brings the same workspace back',
  );
});
