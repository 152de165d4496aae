// The Responses API, embeddings, models and files through the official `openai` SDK, and the
// determinism promise: two fresh environments answer the same unscripted request alike.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { Ajv } from 'ajv';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

const gw = await startTwinBehindGateway('openai');
t.teardown(() => gw.close());
const client = new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });

const lookupTool = {
  type: 'function' as const,
  name: 'lookup_order',
  description: 'Find an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false },
  strict: true,
};

t.test('responses: unscripted function call, output, continuation with previous_response_id', async (t) => {
  const first = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Where is my order?', tools: [lookupTool] });
  t.equal(first.object, 'response');
  t.equal(first.status, 'completed');
  const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
  t.ok(call, 'a function call');
  t.equal(call.name, 'lookup_order');
  t.type(JSON.parse(call.arguments).order_id, 'string');
  const second = await client.responses.create({
    model: 'gpt-4.1-mini',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"status":"shipped"}' }],
    tools: [lookupTool],
  });
  t.equal(second.output[0]!.type, 'message');
  t.match(second.output_text, /^Twin answer to "\{"status":"shipped"\}"/);
  t.ok(second.usage!.input_tokens > first.usage!.input_tokens, 'the continuation carries the earlier turns');
  const got = await client.responses.retrieve(second.id);
  t.equal(got.output_text, second.output_text);
  const items = await client.responses.inputItems.list(second.id);
  t.equal(items.data.length, 1);
  t.equal(items.data[0]!.type, 'function_call_output');
  const missing = await client.responses.create({ model: 'gpt-4.1-mini', previous_response_id: 'resp_nope', input: 'hi' }).catch((e: unknown) => e);
  t.ok(missing instanceof OpenAI.BadRequestError);
  t.equal((missing as InstanceType<typeof OpenAI.BadRequestError>).code, 'previous_response_not_found');
});

t.test('responses: streamed events join to the plain answer', async (t) => {
  const request = { model: 'gpt-4o', instructions: 'Answer plainly.', input: 'Explain the refund policy' };
  const plain = await client.responses.create(request);
  const stream = await client.responses.create({ ...request, stream: true });
  const types: string[] = [];
  const deltas: string[] = [];
  let seq = -1;
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    types.push(event.type);
    t.equal(event.sequence_number, seq + 1, 'sequence numbers count up');
    seq = event.sequence_number;
    if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    if (event.type === 'response.completed') completed = event.response;
  }
  t.same(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
  t.same(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
  t.equal(deltas.join(''), plain.output_text);
  t.same(completed!.usage, plain.usage);

  const helper = client.responses.stream(request);
  const final = await helper.finalResponse();
  t.equal(final.output_text, plain.output_text, 'the SDK stream helper assembles the same text');
});

t.test('responses: structured output valid against text.format', async (t) => {
  const schema = {
    type: 'object',
    properties: { sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] }, score: { type: 'number', minimum: 0, maximum: 1 } },
    required: ['sentiment', 'score'],
    additionalProperties: false,
  };
  const r = await client.responses.create({
    model: 'gpt-4o-mini',
    input: 'Great service, thanks!',
    text: { format: { type: 'json_schema', name: 'sentiment', schema, strict: true } },
  });
  t.ok(new Ajv().validate(schema, JSON.parse(r.output_text)));
});

t.test('embeddings: unit vectors of the model dimension, deterministic, base64 default of the SDK', async (t) => {
  const e = await client.embeddings.create({
    model: 'text-embedding-3-small',
    input: ['refund policy for orders', 'refund policy for returns', 'weather in Paris'],
  });
  t.equal(e.data.length, 3);
  for (const d of e.data) {
    t.equal(d.embedding.length, 1536);
    const norm = Math.sqrt(d.embedding.reduce((s, x) => s + x * x, 0));
    t.ok(Math.abs(norm - 1) < 1e-5, `unit length (${norm})`);
  }
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  t.ok(dot(e.data[0]!.embedding, e.data[1]!.embedding) > dot(e.data[0]!.embedding, e.data[2]!.embedding), 'shared words → closer vectors');
  const again = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'refund policy for orders', encoding_format: 'float' });
  t.same(again.data[0]!.embedding.slice(0, 8), e.data[0]!.embedding.slice(0, 8), 'same text, same vector (float and base64 alike)');
  t.ok(e.usage.prompt_tokens > 0);
  const large = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 256 });
  t.equal(large.data[0]!.embedding.length, 256);
  const bad = await client.embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 256 }).catch((e: unknown) => e);
  t.ok(bad instanceof OpenAI.BadRequestError);
});

t.test('models: list and retrieve', async (t) => {
  const models: string[] = [];
  for await (const m of client.models.list()) models.push(m.id);
  t.ok(models.length > 10);
  t.ok(models.includes('gpt-4o') && models.includes('text-embedding-3-small'));
  const m = await client.models.retrieve('gpt-4o-mini');
  t.equal(m.object, 'model');
  const missing = await client.models.retrieve('gpt-0').catch((e: unknown) => e);
  t.ok(missing instanceof OpenAI.NotFoundError);
});

t.test('files: upload, list, content, delete', async (t) => {
  const jsonl = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}\n';
  const f = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'train.jsonl'), purpose: 'fine-tune' });
  t.match(f.id, /^file-/);
  t.equal(f.bytes, Buffer.byteLength(jsonl));
  t.equal(f.filename, 'train.jsonl');
  const notes = await client.files.create({ file: await toFile(Buffer.from('# Notes'), 'notes.md'), purpose: 'assistants' });
  const listed: string[] = [];
  for await (const x of client.files.list()) listed.push(x.id);
  t.same(listed, [notes.id, f.id], 'newest first');
  const onlyTuning = await client.files.list({ purpose: 'fine-tune' });
  t.same(
    onlyTuning.data.map((x) => x.id),
    [f.id],
  );
  t.equal(await (await client.files.content(f.id)).text(), jsonl);
  t.equal((await client.files.delete(f.id)).deleted, true);
  const gone = await client.files.retrieve(f.id).catch((e: unknown) => e);
  t.ok(gone instanceof OpenAI.NotFoundError);
  const wrongPurpose = await client.files
    .create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'nonsense' as 'assistants' })
    .catch((e: unknown) => e);
  t.ok(wrongPurpose instanceof OpenAI.BadRequestError);
});

t.test('two fresh environments answer the same unscripted request alike', async (t) => {
  const request = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: 'Plan my trip to Rome and check the weather' }],
    tools: [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
            required: ['city', 'days'],
          },
        },
      },
    ],
  };
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const env = await startTwinBehindGateway('openai');
    try {
      const c = new OpenAI({ apiKey: env.apiKey, baseURL: `${env.url}/v1`, maxRetries: 0 });
      const chat = await c.chat.completions.create(request);
      const text = await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say something about Rome' }] });
      const resp = await c.responses.create({ model: 'gpt-4o-mini', input: 'Say something about Rome' });
      answers.push({
        calls: chat.choices[0]!.message.tool_calls,
        usage: chat.usage,
        text: text.choices[0]!.message.content,
        textUsage: text.usage,
        resp: resp.output_text,
        respUsage: resp.usage,
      });
    } finally {
      await env.close();
    }
  }
  t.ok(answers[0]!.calls!.length > 0, 'the unscripted answer calls the offered tool');
  t.same(answers[0], answers[1]);
});

t.test('moderations: deterministic low scores; a script flags named categories', async (t) => {
  const clean = await client.moderations.create({ model: 'omni-moderation-latest', input: ['hello there', 'have a nice day'] });
  t.equal(clean.model, 'omni-moderation-2024-09-26');
  t.equal(clean.results.length, 2);
  t.ok(clean.results.every((r) => !r.flagged));
  t.ok(clean.results[0]!.category_scores.violence < 0.01);
  const again = await client.moderations.create({ model: 'omni-moderation-latest', input: ['hello there', 'have a nice day'] });
  t.same(again.results, clean.results, 'the same input, the same scores');
  await fetch(`${gw.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ match: { contains: 'threat' }, response: { text: 'violence, harassment/threatening' } }),
  });
  const flagged = await client.moderations.create({ input: 'this is a threat' });
  t.equal(flagged.results[0]!.flagged, true);
  t.equal(flagged.results[0]!.categories.violence, true);
  t.equal(flagged.results[0]!.categories['harassment/threatening'], true);
  t.equal(flagged.results[0]!.categories.hate, false);
});
