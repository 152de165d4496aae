// Conversations through the official `openai` SDK: create with items, add, list (newest first by
// default), retrieve and delete items, update metadata, delete; and a response created with
// `conversation` reads its items and appends its own input and output to them.

import t from 'tap';
import OpenAI from 'openai';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('openai');
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

async function script(fields: unknown): Promise<void> {
  const res = await fetch(`${twin.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  if (res.status !== 200) throw new Error(`scripting failed: ${res.status} ${await res.text()}`);
}

t.test('create, add, list, retrieve, delete items; update and delete the conversation', async (t) => {
  const conv = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Hello' }], metadata: { topic: 'demo' } });
  t.match(conv, { object: 'conversation', metadata: { topic: 'demo' } });
  t.match(conv.id, /^conv_/);
  t.same(await client.conversations.retrieve(conv.id), conv);

  const added = await client.conversations.items.create(conv.id, {
    items: [
      { type: 'message', role: 'assistant', content: 'Hi there' },
      { type: 'message', role: 'user', content: 'Tell me a joke' },
    ],
  });
  t.equal(added.data.length, 2);
  const listed = await client.conversations.items.list(conv.id);
  const texts = listed.data.map((i) => (i.type === 'message' ? (i.content[0] as { text: string }).text : i.type));
  t.same(texts, ['Tell me a joke', 'Hi there', 'Hello'], 'newest first');
  t.same(
    (await client.conversations.items.list(conv.id, { order: 'asc', limit: 1 })).data.map((i) => i.id),
    [listed.data[2]!.id],
  );

  const item = await client.conversations.items.retrieve(added.data[0]!.id!, { conversation_id: conv.id });
  t.match(item, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi there' }] });
  const after = await client.conversations.items.delete(added.data[0]!.id!, { conversation_id: conv.id });
  t.equal(after.id, conv.id, 'deleting an item answers with the conversation');
  t.equal((await client.conversations.items.list(conv.id)).data.length, 2);

  t.same((await client.conversations.update(conv.id, { metadata: { topic: 'jokes' } })).metadata, { topic: 'jokes' });
  t.same(await client.conversations.delete(conv.id), { id: conv.id, object: 'conversation.deleted', deleted: true });
  const gone = await client.conversations.retrieve(conv.id).catch((e: unknown) => e);
  t.ok(gone instanceof OpenAI.NotFoundError);
});

t.test('a response with `conversation` answers from its items and joins it', async (t) => {
  await script({ match: { contains: 'favourite colour', in: 'any' }, response: { text: 'You said blue.' } });
  const conv = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'My favourite colour is blue.' }] });
  const response = await client.responses.create({ model: 'gpt-4o-mini', conversation: conv.id, input: 'What did I say?' });
  t.equal(response.output_text, 'You said blue.', 'the earlier item is part of the conversation the script matched');
  t.same(response.conversation, { id: conv.id });
  const items = (await client.conversations.items.list(conv.id, { order: 'asc' })).data;
  t.same(
    items.map((i) => (i.type === 'message' ? `${i.role}: ${(i.content[0] as { text: string }).text}` : i.type)),
    ['user: My favourite colour is blue.', 'user: What did I say?', 'assistant: You said blue.'],
  );
  t.equal(items[2]!.id, response.output[0]!.id, 'the output item keeps its id in the conversation');

  const both = await client.responses
    .create({ model: 'gpt-4o-mini', conversation: conv.id, previous_response_id: response.id, input: 'x' })
    .catch((e: unknown) => e);
  t.ok(both instanceof OpenAI.BadRequestError, 'conversation and previous_response_id are mutually exclusive');
  const unknown = await client.responses.create({ model: 'gpt-4o-mini', conversation: 'conv_missing', input: 'x' }).catch((e: unknown) => e);
  t.ok(unknown instanceof OpenAI.NotFoundError);
});

t.test('limits and unknown parameters', async (t) => {
  const many = Array.from({ length: 21 }, (_, i) => ({ type: 'message' as const, role: 'user' as const, content: `m${i}` }));
  const tooMany = await client.conversations.create({ items: many }).catch((e: unknown) => e);
  t.ok(tooMany instanceof OpenAI.BadRequestError, 'at most 20 items per request');
  const extra = await client.conversations.create({ title: 'x' } as OpenAI.Conversations.ConversationCreateParams).catch((e: unknown) => e);
  t.equal((extra as InstanceType<typeof OpenAI.BadRequestError>).param, 'title');
});

t.test('input_tokens counts what the response reads, its conversation included', async (t) => {
  const conv = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'A long earlier message about the weather.' }] });
  const alone = await client.responses.inputTokens.count({ model: 'gpt-4o-mini', input: 'And now?' });
  const withConversation = await client.responses.inputTokens.count({ model: 'gpt-4o-mini', input: 'And now?', conversation: conv.id });
  t.equal(alone.object, 'response.input_tokens');
  t.ok(withConversation.input_tokens > alone.input_tokens, `${withConversation.input_tokens} > ${alone.input_tokens}`);
  const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'And now?', store: false });
  t.equal(response.usage!.input_tokens, alone.input_tokens, 'the same count as the response usage');
});
