// A twin's coverage matrix, computed from its code and its generated operation table: for every
// operation of the provider's surface, `modelled` (a hand-written route of the same template answers
// it), `generic` (the spec-driven layer does), or `not_served` with the reason. The control plane
// serves it (`GET /twins/catalog/{slug}/coverage`); scripts/gen/coverage.ts writes COVERAGE.md.

import type { TwinDefinition } from '../contract.js';
import { templateShape } from '../path-template.js';
import { routeTwin } from '../router.js';
import type { OperationEntry } from './spec-types.js';

export type CoverageStatus = 'modelled' | 'generic' | 'not_served';

export interface CoverageRow {
  method: string;
  path: string;
  operation_id: string;
  status: CoverageStatus;
  reason?: string;
}

const cache = new WeakMap<TwinDefinition, CoverageRow[]>();

/** A path of the template with a value no static segment has in every parameter. */
const samplePath = (template: string) => template.replace(/\{[^}]+\}/g, '~sample~');

export function coverageOf(def: TwinDefinition): CoverageRow[] {
  const hit = cache.get(def);
  if (hit) return hit;
  const hand = new Set(def.routes.map((r) => `${r.method} ${templateShape(r.path)}`));
  // The twin's own router, as a running twin builds it: what a request of each template reaches.
  const { router } = routeTwin(def);
  const rows: CoverageRow[] = [];
  for (const s of def.generic?.operations() ?? []) {
    const e = s.entry;
    const row: CoverageRow = { method: e.method, path: e.path, operation_id: e.id, status: 'generic' };
    if (hand.has(`${e.method} ${templateShape(e.path)}`)) row.status = 'modelled';
    else if (!s.served) {
      row.status = 'not_served';
      row.reason = s.reason ?? 'not served';
    } else {
      const reached = router.find(e.method, samplePath(e.path));
      if (reached && reached.value.source === 'modelled') {
        row.status = 'not_served';
        row.reason = `shadowed by the hand-written route ${e.method} ${reached.template}`;
      }
    }
    rows.push(row);
  }
  cache.set(def, rows);
  return rows;
}

/** Whether the operation counts toward the twin's coverage figure (its definition's `countedSurface`). */
export function countedSurface(def: TwinDefinition, entry: OperationEntry): boolean {
  const includes = def.countedSurface?.includes;
  return includes ? includes(entry) : !entry.excluded;
}

export interface CoverageSummary {
  modelled: number;
  generic: number;
  not_served: number;
  /** Of the counted surface: how many operations, how many served (modelled or generic). */
  counted: number;
  served: number;
}

export function summarize(def: TwinDefinition): CoverageSummary {
  const rows = coverageOf(def);
  const entries = new Map((def.generic?.operations() ?? []).map((s) => [`${s.entry.method} ${s.entry.path}`, s.entry]));
  const out: CoverageSummary = { modelled: 0, generic: 0, not_served: 0, counted: 0, served: 0 };
  for (const r of rows) {
    out[r.status]++;
    const e = entries.get(`${r.method} ${r.path}`);
    if (e && countedSurface(def, e)) {
      out.counted++;
      if (r.status !== 'not_served') out.served++;
    }
  }
  return out;
}
