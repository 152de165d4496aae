// Every OpenAI and Anthropic suggestion generates with the built-in planner, loads into a twin
// started on the seed file, and the official SDKs read what it promised: files and stored chat
// completions listed, scripted answers (text, tool calls, errors) answering the turns they match.

import t, { type Test } from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTwin, type RunningTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';
import { SCRIPTED_RESPONSE, type ScriptedResponse } from '../../twin-runtime/llm/scripted.js';

const openaiSeeds = await seedFixture('openai', t.teardown.bind(t));
const anthropicSeeds = await seedFixture('anthropic', t.teardown.bind(t));

async function withTwin(slug: string, file: string, fn: (twin: RunningTwin) => Promise<void>): Promise<void> {
  const running = await startTwin(slug, { seedFile: file });
  try {
    await fn(running);
  } finally {
    await running.close();
  }
}

/** Seeds write single-answer rules (`response`, never a `sequence`). */
type SeededScript = Omit<ScriptedResponse, 'response'> & { response: NonNullable<ScriptedResponse['response']> };

function scripts(twin: RunningTwin): SeededScript[] {
  return twin.server.store.listRecords<Omit<SeededScript, 'id'>>(SCRIPTED_RESPONSE).map((r) => ({ id: r.external_id, ...r.body }));
}

const openai = (twin: RunningTwin) => new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });
const anthropic = (twin: RunningTwin) => new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });

/** Ask each scripted phrase through the OpenAI SDK; count text, tool-call and error answers. */
async function askOpenAI(twin: RunningTwin, t: Test) {
  const client = openai(twin);
  const seen = { text: 0, tool: 0, errors: [] as number[] };
  for (const s of scripts(twin)) {
    const tools = [
      { type: 'function' as const, function: { name: s.response.tool_calls?.[0]?.name ?? 'noop', parameters: { type: 'object', properties: {} } } },
    ];
    const res = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Please: ${s.match.contains}` }], tools })
      .catch((e: unknown) => e);
    if (res instanceof OpenAI.APIError) seen.errors.push(res.status!);
    else {
      const c = (res as OpenAI.ChatCompletion).choices[0]!;
      if (c.message.tool_calls) {
        seen.tool++;
        t.equal((c.message.tool_calls[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function.name, s.response.tool_calls![0]!.name);
      } else {
        seen.text++;
        t.equal(c.message.content, s.response.text);
      }
    }
  }
  return seen;
}

async function askClaude(twin: RunningTwin, t: Test) {
  const client = anthropic(twin);
  const seen = { text: 0, tool: 0, errors: [] as number[] };
  for (const s of scripts(twin)) {
    const res = await client.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: `Please: ${s.match.contains}` }] })
      .catch((e: unknown) => e);
    if (res instanceof Anthropic.APIError) seen.errors.push(res.status!);
    else {
      const block = (res as Anthropic.Message).content[0]!;
      if (block.type === 'tool_use') {
        seen.tool++;
        t.equal(block.name, s.response.tool_calls![0]!.name);
      } else if (block.type === 'text') {
        seen.text++;
        t.equal(block.text, s.response.text);
      }
    }
  }
  return seen;
}

t.ok(openaiSeeds.twin.suggestions.length >= 5, 'at least five OpenAI suggestions');
t.ok(anthropicSeeds.twin.suggestions.length >= 5, 'at least five Anthropic suggestions');

t.test('openai: fine-tuning and batch files', async (t) => {
  await withTwin('openai', await openaiSeeds.seedFrom(openaiSeeds.twin.suggestions[0]!.prompt, 'files'), async (twin) => {
    const client = openai(twin);
    const tuning = await client.files.list({ purpose: 'fine-tune' });
    const batch = await client.files.list({ purpose: 'batch' });
    t.equal(tuning.data.length, 3);
    t.equal(batch.data.length, 2);
    const content = await (await client.files.content(tuning.data[0]!.id)).text();
    const first = JSON.parse(content.split('\n')[0]!);
    t.equal(first.messages[1].role, 'assistant', 'fine-tuning lines are chat examples');
  });
});

t.test('openai: stored chat completions', async (t) => {
  await withTwin('openai', await openaiSeeds.seedFrom(openaiSeeds.twin.suggestions[1]!.prompt, 'completions'), async (twin) => {
    const ids: string[] = [];
    for await (const c of openai(twin).chat.completions.list({ limit: 5 })) ids.push(c.id);
    t.equal(ids.length, 12);
    const msgs = await openai(twin).chat.completions.messages.list(ids[0]!);
    t.equal(msgs.data.length, 2);
  });
});

t.test('openai: support bot script (2 tool calls)', async (t) => {
  await withTwin('openai', await openaiSeeds.seedFrom(openaiSeeds.twin.suggestions[2]!.prompt, 'script'), async (twin) => {
    const seen = await askOpenAI(twin, t);
    t.same(seen, { text: 3, tool: 2, errors: [] });
  });
});

t.test('openai: rate limited app', async (t) => {
  await withTwin('openai', await openaiSeeds.seedFrom(openaiSeeds.twin.suggestions[3]!.prompt, 'limited'), async (twin) => {
    const seen = await askOpenAI(twin, t);
    t.same(seen, { text: 4, tool: 0, errors: [429, 429] });
  });
});

t.test('openai: knowledge base', async (t) => {
  await withTwin('openai', await openaiSeeds.seedFrom(openaiSeeds.twin.suggestions[4]!.prompt, 'kb'), async (twin) => {
    const client = openai(twin);
    t.equal((await client.files.list({ purpose: 'assistants' })).data.length, 6);
    t.equal((await client.chat.completions.list({ limit: 100 })).data.length, 8);
  });
});

const anthropicExpected = [
  { text: 5, tool: 0, errors: [] },
  { text: 3, tool: 3, errors: [] },
  { text: 3, tool: 0, errors: [529, 529] },
  { text: 2, tool: 2, errors: [429] },
  { text: 1, tool: 0, errors: [] },
];

anthropicSeeds.twin.suggestions.forEach((s, i) => {
  t.test(`anthropic: ${s.name}`, async (t) => {
    await withTwin('anthropic', await anthropicSeeds.seedFrom(s.prompt, `a${i}`), async (twin) => {
      const seen = await askClaude(twin, t);
      t.same(seen, anthropicExpected[i]);
      if (i === 4) t.equal(scripts(twin)[0]!.match.contains, 'refund policy', 'the name is the phrase it answers');
    });
  });
});
