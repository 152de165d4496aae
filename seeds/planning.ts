// Which planner reads a prompt: the built-in one first (deterministic, free); when it cannot use
// the prompt and an LLM is configured, the LLM planner. Without an LLM the built-in failure stands.

import type { LlmConfig } from './llm-client.js';
import { BuiltinPlanner } from './builtin-planner.js';
import { LlmPlanner } from './llm-planner.js';
import type { PlanResult, PlanRequest } from './planner.js';

export type PlanningOutcome = PlanResult & { planner: 'builtin' | 'llm' };

export async function planSeed(req: PlanRequest, llm?: LlmConfig): Promise<PlanningOutcome> {
  const builtin = await new BuiltinPlanner().plan(req);
  if (builtin.ok || !llm) return { ...builtin, planner: 'builtin' };
  const viaLlm = await new LlmPlanner(llm).plan(req);
  if (viaLlm.ok) return { ...viaLlm, planner: 'llm' };
  return { ok: false, planner: 'llm', failure: `${builtin.failure} ${viaLlm.failure}` };
}
