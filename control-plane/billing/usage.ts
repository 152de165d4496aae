// What an organization owes for, computed from the control plane's own records: twin-hours from
// the twins' run intervals and AI generations from seeds and compiled tests, each unit with a
// stable identifier so reporting it again (after a restart, a lost answer) is recognised.
//
// Twin-hours: each twin's hours are counted from its anchor — the upgrade instant for a twin
// already running then, else the twin's first start after it — in whole hours; every hour in which
// the twin ran at all counts once ("per started hour"). A twin stopped and started again within
// one hour, or restarted after a crash, is not charged twice for that hour. Nothing before the
// upgrade is ever charged.

import { TWIN_HOUR_MS, type UsageKind } from './prices.js';
import type { BillingStore, TwinRunRow } from '../store/billing.js';

export interface UsageUnit {
  identifier: string;
  kind: UsageKind;
  twin: string;
  /** Twin-hours: the environment twin; AI generations: the seed or test. */
  twinId: string | null;
  sourceId: string | null;
  /** Start of the hour, or when the generation finished (ms). */
  at: number;
  quantity: number;
}

export interface Run {
  startedAt: number;
  /** null while it runs. */
  endedAt: number | null;
}

/**
 * Starts (ms) of the hours a twin is charged for up to `now`, later than `after` when given. `runs`
 * are the twin's runs in start order; `since` is when charging began.
 */
export function twinHourStarts(runs: Run[], since: number, now: number, after?: number): number[] {
  const relevant = runs.filter((r) => (r.endedAt ?? now) > since && r.startedAt <= now);
  if (relevant.length === 0) return [];
  const anchor = Math.max(since, relevant[0]!.startedAt);
  const hours = new Set<number>();
  for (const r of relevant) {
    const from = Math.max(r.startedAt, anchor);
    const to = r.endedAt ?? now;
    if (to < from) continue;
    const first = Math.floor((from - anchor) / TWIN_HOUR_MS);
    // An open run is in the hour that holds `now`; a closed one ends just before `to`.
    const last = r.endedAt === null ? Math.floor((to - anchor) / TWIN_HOUR_MS) : Math.max(first, Math.ceil((to - anchor) / TWIN_HOUR_MS) - 1);
    for (let k = first; k <= last; k++) hours.add(anchor + k * TWIN_HOUR_MS);
  }
  return [...hours].filter((h) => after === undefined || h > after).sort((a, b) => a - b);
}

export const twinHourIdentifier = (twinId: string, hourStart: number): string => `twins-twin-hour-${twinId}-${Math.floor(hourStart / 1000)}`;

/** Every unit of the organization not reported yet, oldest first (at most `limit` per kind). */
export function unreportedUsage(store: BillingStore, orgId: string, since: Date, now: Date, limit = 1000): UsageUnit[] {
  const sinceIso = since.toISOString();
  const byTwin = new Map<string, TwinRunRow[]>();
  for (const run of store.runsSince(orgId, sinceIso)) {
    const list = byTwin.get(run.twin_id) ?? [];
    list.push(run);
    byTwin.set(run.twin_id, list);
  }
  const units: UsageUnit[] = [];
  for (const [twinId, rows] of byTwin) {
    const runs = rows.map((r) => ({ startedAt: Date.parse(r.started_at), endedAt: r.ended_at === null ? null : Date.parse(r.ended_at) }));
    for (const at of twinHourStarts(runs, since.getTime(), now.getTime(), store.lastReportedHour(twinId))) {
      if (units.length >= limit) break;
      units.push({ identifier: twinHourIdentifier(twinId, at), kind: 'twin_hours', twin: rows[0]!.twin_slug, twinId, sourceId: null, at, quantity: 1 });
    }
  }
  for (const s of store.unreportedSeeds(orgId, sinceIso, limit)) {
    units.push({ identifier: `twins-ai-generation-seed-${s.id}`, kind: 'ai_generations', twin: s.twin, twinId: null, sourceId: s.id, at: Date.parse(s.completed_at), quantity: 1 });
  }
  for (const t of store.unreportedCompiledTests(orgId, sinceIso, limit)) {
    // A test compiled for several twins is one generation, billed under its first twin.
    const twins = JSON.parse(t.twins) as string[];
    units.push({ identifier: `twins-ai-generation-test-${t.id}`, kind: 'ai_generations', twin: twins[0] ?? 'unknown', twinId: null, sourceId: t.id, at: Date.parse(t.created_at), quantity: 1 });
  }
  return units.sort((a, b) => a.at - b.at);
}
