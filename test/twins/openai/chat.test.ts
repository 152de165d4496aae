// The official `openai` SDK against the OpenAI twin through the recording gateway: a scripted
// tool-call round trip, structured outputs valid against their schema, a streamed answer whose
// chunks join to the plain answer, usage from the tokenizer, errors the SDK classifies.

import t from 'tap';
import OpenAI from 'openai';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

const gw = await startTwinBehindGateway('openai');
t.teardown(() => gw.close());
const client = new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });

async function script(fields: unknown): Promise<void> {
  const res = await fetch(`${gw.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  if (res.status !== 200) throw new Error(`scripting failed: ${res.status} ${await res.text()}`);
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};

t.test('scripted tool call round trip', async (t) => {
  await script({
    match: { contains: 'weather in Paris', tool: 'get_weather' },
    response: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
  });
  await script({ match: { contains: '18°C' }, response: { text: 'It is 18°C and sunny in Paris.' } });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: "What's the weather in Paris?" }];
  const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: [weatherTool] });
  const choice = first.choices[0]!;
  t.equal(choice.finish_reason, 'tool_calls');
  const call = choice.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
  t.equal(call.function.name, 'get_weather');
  t.same(JSON.parse(call.function.arguments), { city: 'Paris' });
  t.match(call.id, /^call_/);
  t.match(first.id, /^chatcmpl-/);
  t.equal(first.model, 'gpt-4o-mini-2024-07-18', 'the alias answers with its dated snapshot');
  t.ok(first.usage!.prompt_tokens > 0 && first.usage!.completion_tokens > 0);
  messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":"18°C","sky":"sunny"}' });
  const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: [weatherTool] });
  t.equal(second.choices[0]!.finish_reason, 'stop');
  t.equal(second.choices[0]!.message.content, 'It is 18°C and sunny in Paris.');
  t.ok(second.usage!.prompt_tokens > first.usage!.prompt_tokens, 'the tool result adds prompt tokens');

  const logged = (await gw.logged()).reverse(); // oldest first
  const asked = logged.filter((r) => r.path === '/v1/chat/completions');
  t.equal(asked.length, 2, 'both turns are in the request log');
  t.match(asked[1]!.request_body!, /18°C/, 'the prompt the model was sent is readable in the log');
});

t.test('a tool message without the assistant tool call is refused as OpenAI does', async (t) => {
  const err = await client.chat.completions
    .create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_x', content: 'x' },
      ],
    })
    .catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.BadRequestError);
  t.match((err as InstanceType<typeof OpenAI.BadRequestError>).message, /must be a response to a preceeding message with 'tool_calls'/);
});

t.test('streamed chunks join to the plain answer; usage chunk when asked', async (t) => {
  const request = {
    model: 'gpt-4o',
    messages: [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Summarise the quarterly report.' },
    ],
  };
  const plain = await client.chat.completions.create(request);
  const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
  const pieces: string[] = [];
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    t.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    const c = chunk.choices[0];
    if (c?.delta.content) pieces.push(c.delta.content);
    if (c?.finish_reason) finish = c.finish_reason;
  }
  t.ok(chunks > 3, `streamed in ${chunks} chunks`);
  t.equal(pieces.join(''), plain.choices[0]!.message.content);
  t.equal(finish, 'stop');
  t.same(usage, plain.usage, 'same usage streamed and plain');
  t.match(plain.choices[0]!.message.content!, /^Twin answer to "Summarise the quarterly report\."/);
});

t.test('scripted stream_chunks are the deltas', async (t) => {
  await script({ match: { matches: '^Count (to|up to) three' }, response: { text: 'one, two, three' }, stream_chunks: ['one', ', two', ', three'] });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count to three' }], stream: true });
  const deltas: string[] = [];
  for await (const chunk of stream) if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
  t.same(deltas, ['one', ', two', ', three']);
});

t.test('streamed tool call: the SDK helper assembles the arguments', async (t) => {
  const runner = client.chat.completions.stream({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Weather in Lisbon please' }],
    tools: [weatherTool],
    tool_choice: 'required',
  });
  const final = await runner.finalChatCompletion();
  const call = final.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
  t.equal(call.function.name, 'get_weather');
  const args = JSON.parse(call.function.arguments) as { city: unknown };
  t.type(args.city, 'string', 'unscripted arguments follow the tool schema');
  t.equal(final.choices[0]!.finish_reason, 'tool_calls');
});

t.test('structured outputs: the answer is valid against the schema', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      priority: { type: 'string', enum: ['low', 'medium', 'high'] },
      estimate: { type: 'integer', minimum: 1, maximum: 13 },
      tags: { type: 'array', items: { type: 'string' } },
      due: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
      owner: { $ref: '#/$defs/person' },
    },
    required: ['title', 'priority', 'estimate', 'tags', 'due', 'owner'],
    additionalProperties: false,
    $defs: {
      person: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
        required: ['name', 'email'],
        additionalProperties: false,
      },
    },
  };
  const completion = await client.chat.completions.create({
    model: 'gpt-4o-2024-08-06',
    messages: [{ role: 'user', content: 'Turn this into a ticket: the login page is slow' }],
    response_format: { type: 'json_schema', json_schema: { name: 'ticket', schema, strict: true } },
  });
  const answer = JSON.parse(completion.choices[0]!.message.content!);
  const ajv = new Ajv({ strict: false });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  const valid = ajv.validate(schema, answer);
  t.ok(valid, `valid against the schema: ${JSON.stringify(ajv.errors)}`);
  t.ok(Object.keys(answer).length === 6);

  const json = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Reply in JSON' }],
    response_format: { type: 'json_object' },
  });
  t.type(JSON.parse(json.choices[0]!.message.content!), 'object');
  const refused = await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Reply' }], response_format: { type: 'json_object' } })
    .catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.BadRequestError, "json_object needs the word 'json' in the messages");
});

t.test('errors: 401, 404 model, 400 context length, scripted 429 with rate-limit headers', async (t) => {
  const wrong = new OpenAI({ apiKey: 'sk-proj-wrong', baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const e401 = await wrong.models.list().catch((e: unknown) => e);
  t.ok(e401 instanceof OpenAI.AuthenticationError);
  t.equal((e401 as InstanceType<typeof OpenAI.AuthenticationError>).code, 'invalid_api_key');

  const e404 = await client.chat.completions.create({ model: 'gpt-9-ultra', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.ok(e404 instanceof OpenAI.NotFoundError);
  t.equal((e404 as InstanceType<typeof OpenAI.NotFoundError>).code, 'model_not_found');

  const long = 'lorem ipsum dolor sit amet '.repeat(30_000);
  const e400 = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
  t.ok(e400 instanceof OpenAI.BadRequestError);
  t.equal((e400 as InstanceType<typeof OpenAI.BadRequestError>).code, 'context_length_exceeded');
  t.match((e400 as Error).message, /maximum context length is 128000 tokens/);

  await script({ match: { contains: 'flood' }, response: { error: { status: 429 } } });
  const e429 = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'flood the API' }] }).catch((e: unknown) => e);
  t.ok(e429 instanceof OpenAI.RateLimitError);
  const err = e429 as InstanceType<typeof OpenAI.RateLimitError>;
  t.equal(err.code, 'rate_limit_exceeded');
  t.equal(err.headers?.get('x-ratelimit-remaining-requests'), '0');
  t.match(err.headers?.get('x-request-id') ?? '', /^req_/);

  const ok = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
  t.match(ok.response.headers.get('x-ratelimit-limit-requests') ?? '', /^\d+$/);
  t.match(ok.response.headers.get('x-ratelimit-remaining-tokens') ?? '', /^\d+$/);
  t.equal(ok.response.headers.get('openai-version'), '2020-10-01');
});

t.test('max_tokens cuts the answer (finish_reason length)', async (t) => {
  const c = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Write a long essay' }],
    max_completion_tokens: 5,
  });
  t.equal(c.choices[0]!.finish_reason, 'length');
  t.equal(c.usage!.completion_tokens, 5);
});

t.test('stored chat completions: list, retrieve, update, messages, delete', async (t) => {
  const made = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    store: true,
    metadata: { topic: 'billing' },
    messages: [{ role: 'user', content: 'Why was I charged twice?' }],
  });
  const page = await client.chat.completions.list({ metadata: { topic: 'billing' } });
  t.ok(page.data.length >= 1);
  t.equal(page.data[0]!.id, made.id);
  const got = await client.chat.completions.retrieve(made.id);
  t.equal(got.choices[0]!.message.content, made.choices[0]!.message.content);
  const updated = await client.chat.completions.update(made.id, { metadata: { topic: 'refunds' } });
  t.same((updated as unknown as { metadata: unknown }).metadata, { topic: 'refunds' });
  const msgs = await client.chat.completions.messages.list(made.id);
  t.equal(msgs.data.length, 1);
  t.equal(msgs.data[0]!.content, 'Why was I charged twice?');
  const deleted = await client.chat.completions.delete(made.id);
  t.equal(deleted.deleted, true);
  const gone = await client.chat.completions.retrieve(made.id).catch((e: unknown) => e);
  t.ok(gone instanceof OpenAI.NotFoundError);
});
