// Scripted responses written the way the control plane writes records (the twin's records API,
// `PUT /_twin/records/scripted_response/<id>` with `{fields}`): tried in insertion order, each
// condition (model, contains, matches, tool) narrowing, read by both model-provider twins.

import t from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTwin, type RunningTwin } from '../helpers/twin.js';

async function put(twin: RunningTwin, id: string, fields: unknown): Promise<void> {
  const res = await fetch(`${twin.url}/_twin/records/scripted_response/${id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields }),
  });
  if (res.status !== 200) throw new Error(`record refused: ${res.status} ${await res.text()}`);
}

const RECORDS: [string, unknown][] = [
  ['only-mini', { match: { model: 'gpt-4o-mini', contains: 'invoice' }, response: { text: 'mini invoice answer' } }],
  ['any-invoice', { match: { contains: 'invoice' }, response: { text: 'general invoice answer' } }],
  ['pattern', { match: { matches: '(?i)^order #\\d+$' }, response: { text: 'order answer' } }],
  ['with-tool', { match: { tool: 'lookup' }, response: { tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }] } }],
  ['broken', { match: { contains: 'never' } }],
];

t.test('openai reads records in insertion order', async (t) => {
  const twin = await startTwin('openai');
  t.teardown(() => twin.close());
  for (const [id, fields] of RECORDS) await put(twin, id, fields);
  const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });
  const say = async (model: string, content: string, tools?: OpenAI.Chat.ChatCompletionTool[]) =>
    (await client.chat.completions.create({ model, messages: [{ role: 'user', content }], ...(tools ? { tools } : {}) })).choices[0]!.message;
  t.equal((await say('gpt-4o-mini', 'my invoice is wrong')).content, 'mini invoice answer');
  t.equal((await say('gpt-4o', 'my invoice is wrong')).content, 'general invoice answer', 'the model condition narrows');
  t.equal((await say('gpt-4o', 'ORDER #42')).content, 'order answer', 'RE2 pattern, case-insensitive flag');
  t.match((await say('gpt-4o', 'order #42 please')).content, /^Twin answer to/, 'an anchored pattern that does not match falls through');
  const tool = await say('gpt-4o', 'anything', [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }]);
  t.same(JSON.parse((tool.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function.arguments), { q: 'x' });
  t.match((await say('gpt-4o', 'never mind')).content, /^Twin answer to/, 'a record that does not read is skipped');
});

t.test('anthropic reads the same records', async (t) => {
  const twin = await startTwin('anthropic');
  t.teardown(() => twin.close());
  for (const [id, fields] of RECORDS) await put(twin, id, fields);
  const client = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });
  const msg = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'about my invoice' }] });
  t.strictSame(msg.content, [{ type: 'text', text: 'general invoice answer' }]);
  const tool = await client.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 64,
    tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: 'anything' }],
  });
  t.match(tool.content[0], { type: 'tool_use', name: 'lookup', input: { q: 'x' } });
});
