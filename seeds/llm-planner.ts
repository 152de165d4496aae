// The LLM planner: asks an OpenAI-compatible chat endpoint (seeds/llm-client.ts) for a plan as a
// JSON-schema answer, then validates it like any other plan — resources and states must be the
// twin's, references must point at earlier groups — before anything is expanded.

import { chatJson, LlmError, type LlmConfig } from './llm-client.js';
import { DEFAULT_CLOCK_START, PLAN_VERSION, planJsonSchema, planSchema, type Plan } from './plan.js';
import type { PlanRequest, PlanResult, Planner } from './planner.js';
import type { SeedVocabulary } from '../twin-runtime/seeding.js';

function systemPrompt(twin: string, v: SeedVocabulary): string {
  const nouns = Object.entries(v.nouns)
    .map(([r, words]) => `${r} (${words.join(', ')})`)
    .join('; ');
  const states = Object.entries(v.stateResources)
    .map(([s, rs]) => `${s} (for ${rs.join(', ')})`)
    .join('; ');
  const attributes = [...new Set(['name', 'amount', 'currency', ...v.phrases.map((p) => p.attribute)])].join(', ');
  return [
    `You turn a description of starting data for a ${twin} API twin into a plan (JSON).`,
    `Resources: ${nouns}.`,
    `States: ${states}.`,
    `Attributes you may set: ${attributes}. Amounts are integers in the currency's smallest unit (cents).`,
    'A group with within=null and owner=null creates `count` new records.',
    'A group with within=<id of an earlier group> narrows that group: its next `count` members get its state and attributes ("3 of them past due").',
    'A group with owner=<id of an earlier group> creates `count` records of its resource for EACH member of that group ("with two charges").',
    'A named record is a group of count 1 with a `name` attribute. Ids are short strings such as g1, g2.',
    'clock_start is the instant the data is as of (null when the description gives none). pools are optional lists of values for a field such as customer.name.',
    'Use only what the description asks for.',
  ].join('\n');
}

export class LlmPlanner implements Planner {
  readonly name = 'llm' as const;

  constructor(private readonly config: LlmConfig) {}

  async plan(req: PlanRequest): Promise<PlanResult> {
    const v = req.seeding.vocabulary;
    let answer: unknown;
    try {
      answer = await chatJson(this.config, {
        system: systemPrompt(req.twin, v),
        user: req.prompt,
        schemaName: 'seed_plan',
        schema: planJsonSchema(Object.keys(v.nouns), Object.keys(v.states)),
      });
    } catch (e) {
      if (e instanceof LlmError) return { ok: false, failure: `The LLM planner failed: ${e.message}` };
      throw e;
    }
    return validateLlmPlan(req.twin, answer, v);
  }
}

export function validateLlmPlan(twin: string, answer: unknown, v: SeedVocabulary): PlanResult {
  const a = (answer ?? {}) as Record<string, unknown>;
  const candidate = {
    version: PLAN_VERSION,
    twin,
    clock_start: typeof a.clock_start === 'string' ? a.clock_start : DEFAULT_CLOCK_START,
    key: 'default',
    groups: a.groups,
    pools: a.pools ?? [],
  };
  const parsed = planSchema.safeParse(candidate);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'plan'}: ${i.message}`).slice(0, 5);
    return { ok: false, failure: `The LLM planner answered with a plan that is not valid (${issues.join('; ')}).` };
  }
  const plan: Plan = parsed.data;
  const problems: string[] = [];
  for (const g of plan.groups) {
    if (!(g.resource in v.nouns)) problems.push(`group ${g.id} asks for '${g.resource}', which the ${twin} twin does not keep`);
    if (g.state !== null) {
      const allowed = v.stateResources[g.state];
      if (!allowed) problems.push(`group ${g.id} asks for the unknown state '${g.state}'`);
      else if (!allowed.includes(g.resource)) problems.push(`group ${g.id} gives ${g.resource} records the state '${g.state}'`);
    }
  }
  if (problems.length) return { ok: false, failure: `The LLM planner's plan cannot be used: ${problems.join('; ')}.` };
  return { ok: true, plan };
}
