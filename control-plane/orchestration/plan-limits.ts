// The plan limits environments obey (docs/decisions.md §9), read from the organization's plan through the
// billing component's plan table.

import type { Db } from '../store/database.js';
import { planNamed } from '../billing/plans.js';

export interface PlanLimits {
  plan: string;
  /** How long an environment may run; null = no limit. */
  maxEnvironmentSeconds: number | null;
  /** How many twins may run at once; null = no limit. */
  maxParallelTwins: number | null;
}

export function planLimitsFor(db: Db, orgId: string): PlanLimits {
  const row = db.prepare('SELECT plan FROM organizations WHERE id = ?').get(orgId) as { plan: string } | undefined;
  const plan = planNamed(row?.plan ?? 'free');
  return { plan: plan.name, maxEnvironmentSeconds: plan.maxEnvironmentSeconds, maxParallelTwins: plan.maxParallelTwins };
}

/** expires_at = created + min(ttl, plan max); null when both are unlimited (docs/decisions.md §7). */
export function expiresAt(createdAt: Date, ttlSeconds: number | null, limits: PlanLimits): string | null {
  const bounds = [ttlSeconds, limits.maxEnvironmentSeconds].filter((n): n is number => n !== null && n !== undefined);
  if (bounds.length === 0) return null;
  return new Date(createdAt.getTime() + Math.min(...bounds) * 1000).toISOString();
}
