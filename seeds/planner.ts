// The planner interface: a prompt in, a validated plan out, or a sentence saying what could not be
// used. Two implementations: the built-in reader of each twin's vocabulary, and the LLM planner.

import type { Plan } from './plan.js';
import type { TwinSeeding } from '../twin-runtime/seeding.js';

export type PlanResult = { ok: true; plan: Plan } | { ok: false; failure: string };

export interface PlanRequest {
  twin: string;
  prompt: string;
  seeding: TwinSeeding;
}

export interface Planner {
  readonly name: 'builtin' | 'llm';
  plan(req: PlanRequest): Promise<PlanResult>;
}
