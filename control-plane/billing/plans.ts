// The plans of docs/decisions.md §9 and their limits. New organizations start on TWINS_DEFAULT_PLAN.

import type { PlanName } from '../config.js';

export interface Plan {
  name: PlanName;
  /** How long an environment may run; null means no limit. */
  maxEnvironmentSeconds: number | null;
  /** How many twins may run at once; null means no limit. */
  maxParallelTwins: number | null;
  /** Whether seeds, generated tests and evaluators can be built. */
  aiGenerationEnabled: boolean;
  /** Days request logs are kept (docs/decisions.md §12; TWINS_LOG_RETENTION_DAYS overrides). */
  logRetentionDays: number;
}

export const PLANS: Record<PlanName, Plan> = {
  free: { name: 'free', maxEnvironmentSeconds: 3600, maxParallelTwins: 3, aiGenerationEnabled: false, logRetentionDays: 7 },
  paygo: { name: 'paygo', maxEnvironmentSeconds: null, maxParallelTwins: null, aiGenerationEnabled: true, logRetentionDays: 30 },
};

/** The plan of that name; an unknown stored name falls back to the most restrictive plan. */
export function planNamed(name: string): Plan {
  return (PLANS as Record<string, Plan>)[name] ?? PLANS.free;
}
