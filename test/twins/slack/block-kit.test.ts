// Block Kit checked as Slack checks it, through @slack/web-api: valid layouts post; each invalid one
// answers `invalid_blocks` with every problem and its JSON pointer in `errors` and, prefixed
// `[ERROR]`, in `response_metadata.messages`, and posts nothing; views get the same checks.

import t from 'tap';
import type { WebAPIPlatformError } from '@slack/web-api';
import { startSlack } from './slack-client.js';
import { blockKitProblems } from '../../../twins/slack/model/block-kit.js';

const slack = await startSlack();
const { client } = slack;
t.teardown(() => slack.twin.close());
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;

async function refusal(blocks: unknown[]): Promise<{ error: string; errors: string[]; messages: string[] }> {
  const err = (await client.chat.postMessage({ channel: general, text: 'x', blocks: blocks as never }).catch((e) => e)) as WebAPIPlatformError;
  const data = err.data as unknown as { error: string; errors: string[]; response_metadata: { messages: string[] } };
  return { error: data.error, errors: data.errors, messages: data.response_metadata.messages };
}

t.test('a rich valid layout posts as sent', async (t) => {
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: 'Deploy report', emoji: true } },
    {
      type: 'section',
      block_id: 's1',
      text: { type: 'mrkdwn', text: '*prod* is green' },
      accessory: { type: 'button', text: { type: 'plain_text', text: 'Open' }, action_id: 'open', url: 'https://example.com' },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Build*\n42' },
        { type: 'plain_text', text: '3m 12s' },
      ],
    },
    { type: 'divider' },
    { type: 'image', image_url: 'https://example.com/chart.png', alt_text: 'latency chart' },
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: 'by ci-bot' },
        { type: 'image', image_url: 'https://example.com/a.png', alt_text: 'avatar' },
      ],
    },
    {
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Roll back' }, style: 'danger', action_id: 'rollback', value: 'v41' },
        {
          type: 'static_select',
          action_id: 'env',
          placeholder: { type: 'plain_text', text: 'env' },
          options: [{ text: { type: 'plain_text', text: 'prod' }, value: 'prod' }],
        },
      ],
    },
  ];
  const posted = await client.chat.postMessage({ channel: general, text: 'Deploy report', blocks });
  t.ok(posted.ok);
  t.same(posted.message?.blocks, blocks);
});

t.test('invalid layouts: invalid_blocks naming every problem by pointer', async (t) => {
  const long = await refusal([{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }]);
  t.equal(long.error, 'invalid_blocks');
  t.same(long.errors, [
    'failed to match all allowed schemas [json-pointer:/blocks/0/text]',
    'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
  ]);
  t.same(
    long.messages,
    long.errors.map((e) => `[ERROR] ${e}`),
  );

  const several = await refusal([
    { type: 'header', text: { type: 'mrkdwn', text: 'not plain' } },
    { type: 'section' },
    { type: 'image', image_url: 'https://example.com/x.png' },
    { type: 'actions', elements: [] },
    { type: 'carousel' },
    { type: 'divider', block_id: 'd' },
    { type: 'divider', block_id: 'd' },
  ]);
  t.same(several.errors, [
    'must be a plain_text text object [json-pointer:/blocks/0/text]',
    'must define either `text` or `fields` [json-pointer:/blocks/1]',
    'missing required field: alt_text [json-pointer:/blocks/2]',
    'must provide a non-empty array [json-pointer:/blocks/3/elements]',
    'unsupported type: carousel [json-pointer:/blocks/4/type]',
    'duplicate block_id: d [json-pointer:/blocks/6/block_id]',
  ]);
  const input = await refusal([{ type: 'input', label: { type: 'plain_text', text: 'Name' }, element: { type: 'plain_text_input', action_id: 'n' } }]);
  t.same(input.errors, ['input blocks are not supported in messages [json-pointer:/blocks/0/type]']);
  const tooMany = await refusal(Array.from({ length: 51 }, () => ({ type: 'divider' })));
  t.same(tooMany.errors, ['must contain at most 50 items [json-pointer:/blocks]']);
  const emptyText = await refusal([{ type: 'section', text: { type: 'plain_text', text: '' } }]);
  t.same(emptyText.errors, [
    'failed to match all allowed schemas [json-pointer:/blocks/0/text]',
    'must be more than 0 characters [json-pointer:/blocks/0/text/text]',
  ]);

  const history = await client.conversations.history({ channel: general });
  t.ok((history.messages ?? []).length > 0);
  t.notOk(
    (history.messages ?? []).some((m) => m.text === 'x'),
    'nothing refused was posted',
  );
});

t.test('chat.update and views get the same checks', async (t) => {
  const posted = await client.chat.postMessage({ channel: general, text: 'to edit' });
  const err = (await client.chat.update({ channel: general, ts: posted.ts!, blocks: [{ type: 'section' }] as never }).catch((e) => e)) as WebAPIPlatformError;
  t.equal(err.data.error, 'invalid_blocks');
  const human = (await client.users.list({})).members!.find((m) => !m.is_bot && m.id !== 'USLACKBOT')!.id!;
  const view = (await client.views
    .publish({ user_id: human, view: { type: 'home', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }] } as never })
    .catch((e) => e)) as WebAPIPlatformError;
  t.equal(view.data.error, 'invalid_arguments');
  t.same(view.data.response_metadata?.messages, [
    '[ERROR] failed to match all allowed schemas [json-pointer:/view/blocks/0/text]',
    '[ERROR] must be less than 151 characters [json-pointer:/view/blocks/0/text/text]',
  ]);
});

t.test('a hostile payload gets a bounded answer', (t) => {
  const problems = blockKitProblems(
    Array.from({ length: 100 }, () => ({ type: 'nope' })),
    '/blocks',
    'view',
  );
  t.equal(problems.length, 50, 'at most 50 problems are reported');
  t.end();
});
