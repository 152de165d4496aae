// The official @anthropic-ai/sdk against the Anthropic twin through the recording gateway: a
// scripted tool-use round trip, system prompts, a streamed answer whose deltas join to the plain
// answer, count_tokens agreeing with usage, models, errors and headers, and two fresh
// environments answering the same unscripted request alike.

import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { Ajv } from 'ajv';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

const gw = await startTwinBehindGateway('anthropic');
t.teardown(() => gw.close());
const client = new Anthropic({ apiKey: gw.apiKey, baseURL: gw.url, maxRetries: 0 });
const MODEL = 'claude-opus-4-5';

async function script(fields: unknown): Promise<void> {
  const res = await fetch(`${gw.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { 'x-api-key': gw.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  if (res.status !== 200) throw new Error(`scripting failed: ${res.status} ${await res.text()}`);
}

const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

t.test('scripted tool use round trip', async (t) => {
  await script({
    match: { contains: 'weather in Oslo', tool: 'get_weather' },
    response: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  });
  await script({ match: { matches: '"temp":\\s*-?\\d+' }, response: { text: 'It is 3°C in Oslo.' } });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Oslo?' }];
  const first = await client.messages.create({ model: MODEL, max_tokens: 1024, system: 'You are a weather bot.', tools: [weather], messages });
  t.equal(first.stop_reason, 'tool_use');
  t.equal(first.model, 'claude-opus-4-5-20251101', 'the alias resolves to the dated model');
  const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
  t.equal(use.name, 'get_weather');
  t.same(use.input, { city: 'Oslo' });
  t.match(use.id, /^toolu_01/);
  t.match(first.id, /^msg_01/);
  messages.push(
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp": 3}' }] },
  );
  const second = await client.messages.create({ model: MODEL, max_tokens: 1024, system: 'You are a weather bot.', tools: [weather], messages });
  t.equal(second.stop_reason, 'end_turn');
  t.strictSame(second.content, [{ type: 'text', text: 'It is 3°C in Oslo.' }], 'no `citations` key when there are none, as the API sends it');
  t.ok(second.usage.input_tokens > first.usage.input_tokens);
  const logged = (await gw.logged()).reverse().filter((r) => r.path === '/v1/messages'); // oldest first
  t.equal(logged.length, 2);
  t.match(logged[0]!.request_body!, /You are a weather bot/, 'the system prompt is in the request log');
});

t.test('a tool_result without its tool_use is refused as Anthropic does', async (t) => {
  const err = await client.messages
    .create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x' }] }] })
    .catch((e: unknown) => e);
  t.ok(err instanceof Anthropic.BadRequestError);
  t.match((err as Error).message, /unexpected `tool_use_id` found in `tool_result` blocks: toolu_x/);
});

t.test('streamed deltas join to the plain answer; the SDK assembles the final message', async (t) => {
  const request = {
    model: MODEL,
    max_tokens: 512,
    system: 'Answer briefly.',
    messages: [{ role: 'user' as const, content: 'Summarise our onboarding guide' }],
  };
  const plain = await client.messages.create(request);
  const stream = await client.messages.create({ ...request, stream: true });
  const events: string[] = [];
  const deltas: string[] = [];
  for await (const event of stream) {
    events.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') deltas.push(event.delta.text);
  }
  t.same(events.slice(0, 3), ['message_start', 'content_block_start', 'content_block_delta'], 'the SDK passes on every event but ping');
  t.same(events.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  t.ok(deltas.length > 3);
  const text = (plain.content[0] as Anthropic.TextBlock).text;
  t.equal(deltas.join(''), text);
  const raw = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': gw.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  t.match(raw.headers.get('content-type'), /^text\/event-stream/);
  const names = [...(await raw.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
  t.same(names.slice(0, 3), ['message_start', 'content_block_start', 'ping'], 'the raw stream pings after the first block starts');
  const final = await client.messages.stream(request).finalMessage();
  t.equal((final.content[0] as Anthropic.TextBlock).text, text);
  t.same(final.usage.output_tokens, plain.usage.output_tokens);
  t.equal(final.stop_reason, 'end_turn');

  const tools = await client.messages
    .stream({ model: MODEL, max_tokens: 512, tools: [weather], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Check Bergen' }] })
    .finalMessage();
  const use = tools.content[0] as Anthropic.ToolUseBlock;
  t.equal(use.type, 'tool_use');
  t.type((use.input as { city: unknown }).city, 'string', 'streamed input_json_delta assembles the arguments');
});

t.test('count_tokens matches the usage of the same request', async (t) => {
  const request = { model: MODEL, system: 'Be kind.', messages: [{ role: 'user' as const, content: 'Hello there, how are you today?' }], tools: [weather] };
  const counted = await client.messages.countTokens(request);
  const made = await client.messages.create({ ...request, max_tokens: 64, tool_choice: { type: 'none' } });
  t.ok(counted.input_tokens > 0);
  t.equal(made.usage.input_tokens, counted.input_tokens);
});

t.test('stop sequences, max_tokens and structured output', async (t) => {
  await script({ match: { contains: 'list the steps' }, response: { text: 'Step one. STOP Step two.' } });
  const stopped = await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    stop_sequences: ['STOP'],
    messages: [{ role: 'user', content: 'list the steps' }],
  });
  t.equal(stopped.stop_reason, 'stop_sequence');
  t.equal(stopped.stop_sequence, 'STOP');
  t.equal((stopped.content[0] as Anthropic.TextBlock).text, 'Step one. ');
  const short = await client.messages.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'Write a long essay' }] });
  t.equal(short.stop_reason, 'max_tokens');
  t.equal(short.usage.output_tokens, 3);
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
    required: ['answer', 'confidence'],
    additionalProperties: false,
  };
  const structured = await client.messages.create({
    model: MODEL,
    max_tokens: 200,
    messages: [{ role: 'user', content: 'Is the sky blue?' }],
    output_config: { format: { type: 'json_schema', schema } },
  } as Anthropic.MessageCreateParamsNonStreaming);
  t.ok(new Ajv().validate(schema, JSON.parse((structured.content[0] as Anthropic.TextBlock).text)));
});

t.test('models: list (paged) and retrieve', async (t) => {
  const ids: string[] = [];
  for await (const m of client.models.list({ limit: 3 })) ids.push(m.id);
  t.ok(ids.length >= 5);
  t.equal(new Set(ids).size, ids.length, 'no model twice across pages');
  const m = await client.models.retrieve('claude-haiku-4-5');
  t.equal(m.id, 'claude-haiku-4-5-20251001');
  t.equal(m.type, 'model');
});

t.test('errors and headers', async (t) => {
  const wrong = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: gw.url, maxRetries: 0 });
  const e401 = await wrong.models.list().catch((e: unknown) => e);
  t.ok(e401 instanceof Anthropic.AuthenticationError);
  const e404 = await client.messages.create({ model: 'claude-0', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.ok(e404 instanceof Anthropic.NotFoundError);
  t.match((e404 as InstanceType<typeof Anthropic.NotFoundError>).error, { type: 'error', error: { type: 'not_found_error' } });
  const tooMany = await client.messages
    .create({ model: 'claude-3-haiku-20240307', max_tokens: 10_000, messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: unknown) => e);
  t.ok(tooMany instanceof Anthropic.BadRequestError);
  const long = 'lorem ipsum dolor sit amet '.repeat(45_000);
  const tooLong = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
  t.ok(tooLong instanceof Anthropic.BadRequestError);
  t.match((tooLong as Error).message, /prompt is too long: \d+ tokens > 200000 maximum/);
  await script({ match: { contains: 'peak hour' }, response: { error: { status: 529 } } });
  const overloaded = await client.messages
    .create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'peak hour request' }] })
    .catch((e: unknown) => e);
  t.ok(overloaded instanceof Anthropic.APIError);
  t.equal((overloaded as InstanceType<typeof Anthropic.APIError>).status, 529);
  t.match((overloaded as InstanceType<typeof Anthropic.APIError>).error, { error: { type: 'overloaded_error' } });
  await script({ match: { contains: 'burst' }, response: { error: { status: 429 } } });
  const limited = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'burst' }] }).catch((e: unknown) => e);
  t.ok(limited instanceof Anthropic.RateLimitError);
  t.equal((limited as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after'), '1');
  t.match((limited as InstanceType<typeof Anthropic.RateLimitError>).requestID ?? '', /^req_011C/);
  const ok = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  t.match(ok.response.headers.get('anthropic-ratelimit-requests-limit') ?? '', /^\d+$/);
  t.match(ok.response.headers.get('anthropic-ratelimit-tokens-reset') ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const noVersion = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': gw.apiKey } });
  t.equal(noVersion.status, 400);
});

t.test('two fresh environments answer the same unscripted request alike', async (t) => {
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const env = await startTwinBehindGateway('anthropic');
    try {
      const c = new Anthropic({ apiKey: env.apiKey, baseURL: env.url, maxRetries: 0 });
      const tool = await c.messages.create({
        model: MODEL,
        max_tokens: 256,
        tools: [weather],
        messages: [{ role: 'user', content: 'Weather for my trip to Rome?' }],
      });
      const text = await c.messages.create({ model: MODEL, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Tell me about Rome' }] });
      answers.push({ tool: tool.content, toolUsage: tool.usage, text: text.content, usage: text.usage });
    } finally {
      await env.close();
    }
  }
  t.equal((answers[0]!.tool[0] as Anthropic.ToolUseBlock).type, 'tool_use', 'the unscripted answer uses the offered tool');
  t.same(answers[0], answers[1]);
});
