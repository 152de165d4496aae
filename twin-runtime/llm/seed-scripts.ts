// Scripted responses a seed creates (openai and anthropic share the shape): each matches a phrase
// of its own (its name, or two words and its position), and answers with a sentence, a tool call,
// or the error its state names.

import type { SeedEntity, SeedValues } from '../seeding.js';

const TOOLS = [
  { name: 'get_weather', argument: 'city' },
  { name: 'lookup_order', argument: 'order_id' },
  { name: 'search_docs', argument: 'query' },
  { name: 'create_ticket', argument: 'title' },
];

export function scriptedFields(values: SeedValues, e: SeedEntity, errors: Record<string, { status: number; type?: string }>): Record<string, unknown> {
  const words = values.builtInPool('word');
  const contains = e.attributes.name ?? `${values.pick(e.key, 'script.first', words)} ${values.pick(e.key, 'script.second', words)} #${e.key}`;
  const error = e.states.map((s) => errors[s]).find((x) => x !== undefined);
  if (error) return { match: { contains }, response: { error } };
  if (e.states.includes('tool_call')) {
    const tool = TOOLS[values.number(e.key, 'script.tool') % TOOLS.length]!;
    return {
      match: { contains },
      response: { tool_calls: [{ name: tool.name, arguments: { [tool.argument]: values.pick(e.key, 'script.argument', words) } }] },
    };
  }
  return { match: { contains }, response: { text: values.pick(e.key, 'script.text', values.builtInPool('sentence')) } };
}
