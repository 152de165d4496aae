// LangChain's ChatAnthropic (@langchain/anthropic, on its own @anthropic-ai/sdk) over the Anthropic
// twin: invoke, stream, and bindTools with a tool call and the answer after its result.

import t from 'tap';
import { ChatAnthropic } from '@langchain/anthropic';
import { type AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { startTwin } from '../../helpers/twin.js';
import { script } from './helpers.js';

const twin = await startTwin('anthropic');
t.teardown(() => twin.close());

const chat = new ChatAnthropic({ model: 'claude-sonnet-4-6', apiKey: twin.apiKey, anthropicApiUrl: twin.url, maxRetries: 0, maxTokens: 512 });

t.test('invoke answers with the scripted text and usage', async (t) => {
  await script(twin, 'anthropic', { match: { contains: 'Say hello' }, response: { text: 'Hello from the twin.' } });
  const reply = await chat.invoke([new HumanMessage('Say hello')]);
  t.equal(reply.content, 'Hello from the twin.');
  t.ok((reply.usage_metadata?.input_tokens ?? 0) > 0, 'input tokens are reported');
  t.equal(reply.response_metadata.model, 'claude-sonnet-4-6');
});

t.test('stream delivers the scripted chunks in order', async (t) => {
  await script(twin, 'anthropic', {
    match: { contains: 'stream a haiku' },
    response: { text: 'Old pond, frog jumps in.' },
    stream_chunks: ['Old pond, ', 'frog jumps in.'],
  });
  const parts: string[] = [];
  for await (const chunk of await chat.stream('Please stream a haiku'))
    if (typeof chunk.content === 'string' && chunk.content !== '') parts.push(chunk.content);
  t.same(parts, ['Old pond, ', 'frog jumps in.']);
});

t.test('bindTools: a scripted tool call, then the answer to its result', async (t) => {
  await script(twin, 'anthropic', {
    match: { contains: 'order 42', tool: 'lookup_order' },
    response: { tool_calls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] },
  });
  await script(twin, 'anthropic', { match: { tool_result: 'lookup_order' }, response: { text: 'Order 42 shipped yesterday.' } });
  const withTools = chat.bindTools([
    {
      name: 'lookup_order',
      description: 'Find an order by id',
      input_schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  ]);
  const question = new HumanMessage('Where is order 42?');
  const first = (await withTools.invoke([question])) as AIMessage;
  t.equal(first.tool_calls?.length, 1);
  const call = first.tool_calls![0]!;
  t.equal(call.name, 'lookup_order');
  t.same(call.args, { order_id: '42' });
  const second = await withTools.invoke([question, first, new ToolMessage({ tool_call_id: call.id!, content: '{"status":"shipped"}' })]);
  t.equal(second.content, 'Order 42 shipped yesterday.');
});
