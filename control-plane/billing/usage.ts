// What an organization owes for, computed from the control plane's own records: twin-hours from
// the twins' run intervals and AI generations from seeds and compiled tests, each unit with a
// stable identifier, written down in the meter event that carries it before that is sent, so no
// unit is ever carried twice (a pending event is sent again as it was, see service.ts).
//
// Twin-hours: each twin's hours are counted from its anchor — the upgrade instant for a twin
// already running then, else the twin's first start after it — in whole hours; every hour in which
// the twin ran at all counts once ("per started hour"). A twin stopped and started again within
// one hour, or restarted after a crash, is not charged twice for that hour. Nothing before the
// upgrade is ever charged.

import { TWIN_HOUR_MS, type UsageKind } from './prices.js';
import { randomUUID } from 'node:crypto';
import type { BillingStore, MeterBatchRow, TwinRunRow, UsageReportRow } from '../store/billing.js';

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

/** Meter events older than this are refused by the processor (Stripe: 35 days). */
export const REPORTABLE_MS = 35 * 86_400_000;

/**
 * Starts (ms) of the hours a twin is charged for up to `now`, none before `notBefore` when given.
 * `runs` are the twin's runs in start order; `since` is when charging began.
 */
export function twinHourStarts(runs: Run[], since: number, now: number, notBefore?: number): number[] {
  const relevant = runs.filter((r) => (r.endedAt ?? now) > since && r.startedAt <= now);
  if (relevant.length === 0) return [];
  const anchor = Math.max(since, relevant[0]!.startedAt);
  const lowest = notBefore === undefined ? 0 : Math.max(0, Math.ceil((notBefore - anchor) / TWIN_HOUR_MS));
  const hours = new Set<number>();
  for (const r of relevant) {
    const from = Math.max(r.startedAt, anchor);
    const to = r.endedAt ?? now;
    if (to < from) continue;
    const first = Math.floor((from - anchor) / TWIN_HOUR_MS);
    // An open run is in the hour that holds `now`; a closed one ends just before `to`.
    const last = r.endedAt === null ? Math.floor((to - anchor) / TWIN_HOUR_MS) : Math.max(first, Math.ceil((to - anchor) / TWIN_HOUR_MS) - 1);
    for (let k = Math.max(first, lowest); k <= last; k++) hours.add(anchor + k * TWIN_HOUR_MS);
  }
  return [...hours].sort((a, b) => a - b);
}

export const twinHourIdentifier = (twinId: string, hourStart: number): string => `twins-twin-hour-${twinId}-${Math.floor(hourStart / 1000)}`;

/**
 * Every unit of the organization not reported yet (nor refused), oldest first, at most `limit` per
 * kind; hours older than the processor accepts are left out.
 */
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
    const window = now.getTime() - REPORTABLE_MS;
    const reported = store.reportedHourStarts(twinId, new Date(window).toISOString());
    for (const at of twinHourStarts(runs, since.getTime(), now.getTime(), window)) {
      if (units.length >= limit) break;
      if (reported.has(at)) continue;
      units.push({ identifier: twinHourIdentifier(twinId, at), kind: 'twin_hours', twin: rows[0]!.twin_slug, twinId, sourceId: null, at, quantity: 1 });
    }
  }
  for (const s of store.unreportedSeeds(orgId, sinceIso, limit)) {
    units.push({
      identifier: `twins-ai-generation-seed-${s.id}`,
      kind: 'ai_generations',
      twin: s.twin,
      twinId: null,
      sourceId: s.id,
      at: Date.parse(s.completed_at),
      quantity: 1,
    });
  }
  for (const t of store.unreportedCompiledTests(orgId, sinceIso, limit)) {
    // A test compiled for several twins is one generation, billed under its first twin.
    const twins = JSON.parse(t.twins) as string[];
    units.push({
      identifier: `twins-ai-generation-test-${t.id}`,
      kind: 'ai_generations',
      twin: twins[0] ?? 'unknown',
      twinId: null,
      sourceId: t.id,
      at: Date.parse(t.created_at),
      quantity: 1,
    });
  }
  return units.sort((a, b) => a.at - b.at);
}

export interface StagedBatch {
  row: Omit<MeterBatchRow, 'state' | 'detail' | 'reported_at'>;
  units: Omit<UsageReportRow, 'batch'>[];
}

/**
 * New units as meter events: one per quantity (kind and twin), dated at its latest unit but not
 * before `periodStart` (unix seconds) — a pass sends a handful of events however many twins ran
 * and hours passed, and usage found late (after an outage spanning a renewal) is billed in the
 * current period rather than lost.
 */
export function batchesOf(orgId: string, units: UsageUnit[], periodStart = 0, createdAt = new Date().toISOString()): StagedBatch[] {
  const groups = new Map<string, UsageUnit[]>();
  for (const u of units) {
    const key = `${u.kind}:${u.twin}`;
    groups.set(key, [...(groups.get(key) ?? []), u]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const identifier = `twins-usage-${randomUUID()}`;
    return {
      row: {
        identifier,
        organization_id: orgId,
        kind: first.kind,
        twin_slug: first.twin,
        value: group.reduce((n, u) => n + u.quantity, 0),
        timestamp: Math.max(periodStart, Math.floor(Math.max(...group.map((u) => u.at)) / 1000)),
        created_at: createdAt,
      },
      units: group.map((u) => ({
        identifier: u.identifier,
        organization_id: orgId,
        kind: u.kind,
        twin_slug: u.twin,
        twin_id: u.twinId,
        source_id: u.sourceId,
        quantity: u.quantity,
        occurred_at: new Date(u.at).toISOString(),
      })),
    };
  });
}
