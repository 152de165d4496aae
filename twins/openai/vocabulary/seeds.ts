// Seed vocabulary and suggested starting states of the OpenAI twin: uploaded files (by purpose),
// stored chat completions (asked through the API with `store: true`, as an app that logs its
// completions would) and scripted answers (tool calls, rate-limit errors). Files and scripts go
// through the twin-only helpers (the expander speaks JSON; OpenAI's upload is multipart).

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';
import { scriptedFields } from '../../../twin-runtime/llm/seed-scripts.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Fine-tuning and batch files', prompt: '3 files for fine-tuning and 2 files for batch' },
  { name: 'Logged chat completions', prompt: '12 stored chat completions' },
  { name: 'Support bot script', prompt: '5 scripted responses, 2 of them tool calls' },
  { name: 'Rate limited app', prompt: '2 rate limited scripted responses and 4 scripted responses' },
  { name: 'Knowledge base', prompt: '6 files for assistants and 8 stored chat completions' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    file: ['file', 'files', 'document', 'documents', 'upload', 'uploads'],
    chat_completion: ['stored chat completion', 'stored chat completions', 'chat completion', 'chat completions', 'completion', 'completions'],
    scripted_response: ['scripted response', 'scripted responses', 'scripted answer', 'scripted answers', 'canned answer', 'canned answers'],
  },
  states: {
    'fine-tune': ['fine-tuning', 'fine tuning', 'fine-tune'],
    batch: ['batch', 'batches'],
    assistants: ['assistants', 'assistant'],
    user_data: ['user data'],
    tool_call: ['tool call', 'tool calls', 'tool-calling', 'tool calling'],
    rate_limited: ['rate limited', 'rate-limited'],
    server_error: ['server error', 'server errors', 'failing'],
  },
  stateResources: {
    'fine-tune': ['file'],
    batch: ['file'],
    assistants: ['file'],
    user_data: ['file'],
    tool_call: ['scripted_response'],
    rate_limited: ['scripted_response'],
    server_error: ['scripted_response'],
  },
  phrases: [],
  fillers: ['openai', 'stored', 'for'],
};

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'];

async function file(ctx: SeedExpansionContext, e: SeedEntity): Promise<void> {
  const v = ctx.values;
  const purpose = (['fine-tune', 'batch', 'assistants', 'user_data'] as const).find((p) => e.states.includes(p)) ?? 'assistants';
  const words = v.builtInPool('word');
  const stem = e.attributes.name ?? `${v.pick(e.key, 'file.name', words)}-${v.pick(e.key, 'file.topic', words)}`;
  let filename: string;
  let content: string;
  if (purpose === 'fine-tune' || purpose === 'batch') {
    filename = stem.endsWith('.jsonl') ? stem : `${stem}.jsonl`;
    const lines = Array.from({ length: v.int(e.key, 'file.lines', 2, 6) }, (_, i) => {
      const question = v.pick(`${e.key}/${i}`, 'file.question', v.builtInPool('sentence'));
      const answer = v.pick(`${e.key}/${i}`, 'file.answer', v.builtInPool('sentence'));
      return purpose === 'batch'
        ? JSON.stringify({
            custom_id: `request-${i + 1}`,
            method: 'POST',
            url: '/v1/chat/completions',
            body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] },
          })
        : JSON.stringify({
            messages: [
              { role: 'user', content: question },
              { role: 'assistant', content: answer },
            ],
          });
    });
    content = lines.join('\n') + '\n';
  } else {
    filename = /\.\w+$/.test(stem) ? stem : `${stem}.md`;
    content =
      Array.from({ length: v.int(e.key, 'file.paragraphs', 2, 5) }, (_, i) => v.pick(`${e.key}/${i}`, 'file.text', v.builtInPool('sentence'))).join('\n\n') +
      '\n';
  }
  await ctx.api.advanceBy(v.int(e.key, 'delay', 30, 900) * 1000);
  await ctx.api.call('POST', '/v1/twin/files', { filename, purpose, content });
}

async function chatCompletion(ctx: SeedExpansionContext, e: SeedEntity): Promise<void> {
  const v = ctx.values;
  await ctx.api.advanceBy(v.int(e.key, 'delay', 30, 900) * 1000);
  const question = e.attributes.name ?? v.pick(e.key, 'completion.question', v.builtInPool('sentence'));
  await ctx.api.call('POST', '/v1/chat/completions', {
    model: v.pick(e.key, 'completion.model', MODELS),
    store: true,
    metadata: { source: 'seed' },
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: question },
    ],
  });
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  for (const e of entities) {
    if (e.resource === 'file') await file(ctx, e);
    else if (e.resource === 'chat_completion') await chatCompletion(ctx, e);
    else if (e.resource === 'scripted_response') {
      await ctx.api.call(
        'POST',
        '/v1/twin/scripted_responses',
        scriptedFields(ctx.values, e, { rate_limited: { status: 429 }, server_error: { status: 500 } }),
      );
    } else throw new SeedExpansionError(`The OpenAI twin cannot seed ${e.resource} records.`);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
