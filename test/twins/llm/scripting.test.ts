// Scripts that model an agent's world, the same on both LLM twins: `times` (a rule answers that
// many calls, then the next matching rule gets its turn), ordered `sequence`s, matching on any
// message of the conversation and on tool results, unknown fields refused with a sentence; and
// "429 once, then an answer" received by the official `openai` and `@anthropic-ai/sdk` clients
// through their own retries.

import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { RunningTwin } from '../../helpers/twin.js';
import { authHeaders, postScript, script, startLlmTwins, type LlmSlug } from './helpers.js';

const twins = await startLlmTwins();
t.teardown(() => Promise.all([twins.openai.close(), twins.anthropic.close()]));

interface Answer {
  status: number;
  text?: string;
  tool?: string;
}

/** One plain HTTP turn (no SDK retries): the status and the text or tool call it answered with. */
async function ask(slug: LlmSlug, twin: RunningTwin, messages: unknown[], opts: { system?: string; tools?: string[] } = {}): Promise<Answer> {
  const headers = { ...authHeaders(slug, twin.apiKey), 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const body =
    slug === 'openai'
      ? {
          model: 'gpt-4o-mini',
          messages: [...(opts.system ? [{ role: 'system', content: opts.system }] : []), ...messages],
          ...(opts.tools ? { tools: opts.tools.map((name) => ({ type: 'function', function: { name, parameters: schema } })) } : {}),
        }
      : {
          model: 'claude-haiku-4-5',
          max_tokens: 256,
          messages,
          ...(opts.system ? { system: opts.system } : {}),
          ...(opts.tools ? { tools: opts.tools.map((name) => ({ name, input_schema: schema })) } : {}),
        };
  const path = slug === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const res = await fetch(`${twin.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json: unknown = await res.json();
  if (res.status !== 200) return { status: res.status };
  if (slug === 'openai') {
    const msg = (json as { choices: { message: { content: string | null; tool_calls?: { function: { name: string } }[] } }[] }).choices[0]!.message;
    return msg.tool_calls ? { status: 200, tool: msg.tool_calls[0]!.function.name } : { status: 200, text: msg.content ?? '' };
  }
  const block = (json as { content: { type: string; text?: string; name?: string }[] }).content[0]!;
  return block.type === 'tool_use' ? { status: 200, tool: block.name! } : { status: 200, text: block.text! };
}

const user = (content: string) => ({ role: 'user', content });

/** A conversation in which the assistant called `tool` and the user sends back its result. */
function afterTool(slug: LlmSlug, question: string, tool: string, result: string): unknown[] {
  if (slug === 'openai') {
    return [
      user(question),
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: tool, arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: result },
    ];
  }
  return [
    user(question),
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
  ];
}

for (const slug of ['openai', 'anthropic'] as const) {
  const twin = twins[slug];

  t.test(`${slug}: times, then the next matching rule`, async (t) => {
    await script(twin, slug, { match: { contains: 'flaky question' }, times: 2, response: { error: { status: 503 } } });
    await script(twin, slug, { match: { contains: 'flaky question' }, response: { text: 'steady answer' } });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await ask(slug, twin, [user('a flaky question')])).status);
    t.same(statuses, [503, 503], 'the first rule answers two calls');
    t.same(await ask(slug, twin, [user('a flaky question')]), { status: 200, text: 'steady answer' });
    t.same(await ask(slug, twin, [user('a flaky question')]), { status: 200, text: 'steady answer' }, 'a rule without times answers every call');
    const listed = (await (await fetch(`${twin.url}/v1/twin/scripted_responses`, { headers: authHeaders(slug, twin.apiKey) })).json()) as {
      data: { times?: number; answered?: number }[];
    };
    t.ok(listed.data.length > 0);
    t.same(
      listed.data.filter((r) => r.times === 2).map((r) => r.answered),
      [2],
      'the listing shows how many calls the rule answered',
    );
  });

  t.test(`${slug}: a sequence answers in order, one call per step`, async (t) => {
    await script(twin, slug, {
      match: { contains: 'plan the trip' },
      sequence: [{ tool_calls: [{ name: 'search_flights', arguments: { to: 'Tromsø' } }] }, { text: 'Booked: Tromsø on Friday.' }],
    });
    await script(twin, slug, { match: { contains: 'plan the trip' }, response: { text: 'Nothing left to plan.' } });
    t.same(await ask(slug, twin, [user('Please plan the trip')], { tools: ['search_flights'] }), { status: 200, tool: 'search_flights' });
    t.same(await ask(slug, twin, [user('Please plan the trip')]), { status: 200, text: 'Booked: Tromsø on Friday.' });
    t.same(await ask(slug, twin, [user('Please plan the trip')]), { status: 200, text: 'Nothing left to plan.' }, 'after the last step the next rule answers');
  });

  t.test(`${slug}: in "any" matches an earlier message or the system prompt`, async (t) => {
    await script(twin, slug, { match: { contains: 'ticket FIN-7', in: 'any' }, response: { text: 'Still about FIN-7.' } });
    const history = [user('I opened ticket FIN-7'), { role: 'assistant', content: 'Noted.' }, user('Any news?')];
    t.same(await ask(slug, twin, history), { status: 200, text: 'Still about FIN-7.' }, 'an earlier user message matches');
    t.same(await ask(slug, twin, [user('Any news?')], { system: 'The customer asks about ticket FIN-7.' }), { status: 200, text: 'Still about FIN-7.' });
    const unscripted = await ask(slug, twin, [user('Any news on ticket FIN-8?')]);
    t.not(unscripted.text, 'Still about FIN-7.', 'a conversation without the phrase is not matched');
  });

  t.test(`${slug}: tool_result matches the result of a named tool`, async (t) => {
    await script(twin, slug, { match: { tool_result: 'get_stock', contains: '"count":0' }, response: { text: 'Sold out, sorry.' } });
    await script(twin, slug, { match: { tool_result: 'get_stock' }, response: { text: 'In stock.' } });
    t.same(await ask(slug, twin, afterTool(slug, 'Do you have red shoes?', 'get_stock', '{"count":0}'), { tools: ['get_stock'] }), {
      status: 200,
      text: 'Sold out, sorry.',
    });
    t.same(await ask(slug, twin, afterTool(slug, 'Do you have red shoes?', 'get_stock', '{"count":3}'), { tools: ['get_stock'] }), {
      status: 200,
      text: 'In stock.',
    });
    const other = await ask(slug, twin, afterTool(slug, 'Do you have red shoes?', 'get_price', '{"count":0}'), { tools: ['get_price'] });
    t.not(other.text, 'Sold out, sorry.', "another tool's result does not match");
  });

  t.test(`${slug}: unknown or misplaced fields are refused with a sentence`, async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ match: { contains: 'x' }, response: { text: 'y' }, repeat: 2 }, /`repeat` is not a field/],
      [{ match: { contians: 'x' }, response: { text: 'y' } }, /`match\.contians` is not a field/],
      [{ match: {}, response: { text: 'y', delay: 5 } }, /`response\.delay` is not a field/],
      [{ match: {}, response: { error: { status: 429, retry_after: 2 } } }, /`response\.error\.retry_after` is not a field/],
      [{ match: {}, response: { text: 'y' }, times: 0 }, /`times` must be a whole number/],
      [{ match: {}, sequence: [{ text: 'a' }], times: 2 }, /cannot be combined with `sequence`/],
      [{ match: {}, sequence: [] }, /`sequence` must be a list/],
      [{ match: { in: 'all' }, response: { text: 'y' } }, /`match\.in` must be/],
      [{ match: {}, response: { text: 'y' }, answered: 3 }, /`answered` is not a field/],
    ];
    for (const [fields, sentence] of cases) {
      const { status, body } = await postScript(twin, slug, fields);
      t.equal(status, 400, JSON.stringify(fields));
      t.match(JSON.stringify(body), sentence);
    }
  });
}

t.test('openai SDK: 429 once, then the answer through its own retry', async (t) => {
  const twin = twins.openai;
  await script(twin, 'openai', { match: { contains: 'retry me' }, times: 1, response: { error: { status: 429 } } });
  await script(twin, 'openai', { match: { contains: 'retry me' }, response: { text: 'Answered after a retry.' } });
  const statuses: number[] = [];
  const client = new OpenAI({
    apiKey: twin.apiKey,
    baseURL: `${twin.url}/v1`,
    maxRetries: 2,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    },
  });
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please retry me' }] });
  t.equal(completion.choices[0]!.message.content, 'Answered after a retry.');
  t.same(statuses, [429, 200], 'one 429, retried once');
});

t.test('@anthropic-ai/sdk: 429 once, then the answer through its own retry', async (t) => {
  const twin = twins.anthropic;
  await script(twin, 'anthropic', { match: { contains: 'retry me' }, times: 1, response: { error: { status: 429 } } });
  await script(twin, 'anthropic', { match: { contains: 'retry me' }, response: { text: 'Answered after a retry.' } });
  const statuses: number[] = [];
  const client = new Anthropic({
    apiKey: twin.apiKey,
    baseURL: twin.url,
    maxRetries: 2,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    },
  });
  const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'please retry me' }] });
  t.same(message.content, [{ type: 'text', text: 'Answered after a retry.' }]);
  t.same(statuses, [429, 200], 'one 429, retried once');
});
