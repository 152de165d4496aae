// Moderations: every input scored in each of OpenAI's categories. Scores are deterministic (from
// the input's digest) and low, so nothing is flagged — unless a scripted response matching the
// input answers with `text` naming categories (`"violence, hate"`), which are then flagged with a
// high score.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { DeterministicSource, digestOf } from '../../../twin-runtime/llm/determinism.js';
import { findScripted } from '../../../twin-runtime/llm/scripted.js';
import { invalidRequest, modelNotFound } from '../wire/errors.js';

export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

const MODELS: Record<string, string> = {
  'omni-moderation-latest': 'omni-moderation-2024-09-26',
  'omni-moderation-2024-09-26': 'omni-moderation-2024-09-26',
  'text-moderation-latest': 'text-moderation-007',
  'text-moderation-stable': 'text-moderation-007',
  'text-moderation-007': 'text-moderation-007',
};

export function createModeration(ctx: TwinContext, input: { model?: string; texts: string[] }) {
  const requested = input.model ?? 'omni-moderation-latest';
  const model = Object.hasOwn(MODELS, requested) ? MODELS[requested]! : undefined;
  if (!model) throw modelNotFound(requested);
  if (input.texts.length === 0) throw invalidRequest("Invalid 'input': empty array. Expected an array with minimum length 1.", 'input', 'empty_array');
  const results = input.texts.map((text) => {
    const scripted = findScripted(ctx.store, { model: requested, text, tools: [] });
    const named = new Set((scripted?.response.text ?? '').split(/\s*,\s*/).filter((c) => (MODERATION_CATEGORIES as readonly string[]).includes(c)));
    const rng = new DeterministicSource(digestOf({ endpoint: 'moderations', model, text }));
    const categories: Record<string, boolean> = {};
    const scores: Record<string, number> = {};
    const applied: Record<string, string[]> = {};
    for (const c of MODERATION_CATEGORIES) {
      const flagged = named.has(c);
      categories[c] = flagged;
      scores[c] = flagged ? 0.9 + rng.unit() * 0.09 : Number((rng.unit() * 1e-3).toExponential(3));
      applied[c] = ['text'];
    }
    return { flagged: named.size > 0, categories, category_scores: scores, category_applied_input_types: applied };
  });
  return { id: ctx.ids.nextIn('modr', 'modr-', 24), model, results };
}
