// Seed vocabulary and suggested starting states of the Anthropic twin: scripted answers — text,
// tool use, or the errors Anthropic sends under load (rate limited, overloaded) — created through
// the twin-only helper, each matching a phrase of its own (its name when given).

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';
import { scriptedFields } from '../../../twin-runtime/llm/seed-scripts.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Scripted assistant', prompt: '5 scripted responses' },
  { name: 'Agent with tools', prompt: '6 scripted responses, 3 of them tool calls' },
  { name: 'Overloaded at peak', prompt: '2 overloaded scripted responses and 3 scripted responses' },
  { name: 'Rate limited agent', prompt: 'A rate limited scripted response and 4 scripted responses, 2 of them tool calls' },
  { name: 'Named answer', prompt: 'A scripted response named "refund policy"' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    scripted_response: ['scripted response', 'scripted responses', 'scripted answer', 'scripted answers', 'canned answer', 'canned answers'],
  },
  states: {
    tool_call: ['tool call', 'tool calls', 'tool use', 'tool-calling', 'tool calling'],
    rate_limited: ['rate limited', 'rate-limited'],
    overloaded: ['overloaded'],
  },
  stateResources: {
    tool_call: ['scripted_response'],
    rate_limited: ['scripted_response'],
    overloaded: ['scripted_response'],
  },
  phrases: [],
  fillers: ['anthropic', 'claude'],
};

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  for (const e of entities) {
    if (e.resource !== 'scripted_response') throw new SeedExpansionError(`The Anthropic twin cannot seed ${e.resource} records.`);
    await ctx.api.call('POST', '/v1/twin/scripted_responses', scriptedFields(ctx.values, e, { rate_limited: { status: 429 }, overloaded: { status: 529 } }));
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
