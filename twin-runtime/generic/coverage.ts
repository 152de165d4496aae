// A twin's coverage matrix, computed from its code and its generated operation table: for every
// operation of the provider's surface, its fidelity level (twin-runtime/fidelity.ts) — `modelled`
// when a hand-written route of the same template answers it (or the level that route declares),
// else the level the generic layer decided (`inferred`, `stored` or `unsupported`, levels.ts) with
// the reason; a twin whose surface is not HTTP operations (GraphQL) gives its rows itself
// (`operationTable`). The control plane serves it (`GET /twins/catalog/{slug}/coverage`, decisions §14);
// scripts/gen/coverage.ts writes COVERAGE.md.

import type { TwinDefinition } from '../contract.js';
import { FIDELITY_LEVELS, type FidelityLevel } from '../fidelity.js';
import { templateShape } from '../path-template.js';
import { routeTwin } from '../router.js';
import type { OperationEntry } from './spec-types.js';
import { toolLevel } from '../mcp.js';

export interface CoverageRow {
  method: string;
  path: string;
  operation_id: string;
  level: FidelityLevel;
  /** The old name of `level`, kept for one release (decisions §14). */
  status: FidelityLevel;
  /** Why an operation is unsupported, or what the engine infers for it. */
  reason?: string;
}

const cache = new WeakMap<TwinDefinition, CoverageRow[]>();

/** A path of the template with a value no static segment has in every parameter. */
const samplePath = (template: string) => template.replace(/\{[^}]+\}/g, '~sample~');

export function coverageOf(def: TwinDefinition): CoverageRow[] {
  const hit = cache.get(def);
  if (hit) return hit;
  if (def.operationTable) {
    const rows = def.operationTable.operations().map(
      (o): CoverageRow => ({
        method: o.method,
        path: o.path,
        operation_id: o.operation,
        level: o.level,
        status: o.level,
        ...(o.reason ? { reason: o.reason } : {}),
      }),
    );
    cache.set(def, rows);
    return rows;
  }
  const hand = new Map(def.routes.map((r) => [`${r.method} ${templateShape(r.path)}`, r]));
  // The twin's own router, as a running twin builds it: what a request of each template reaches.
  const { router } = routeTwin(def);
  const rows: CoverageRow[] = [];
  for (const s of def.generic?.operations() ?? []) {
    const e = s.entry;
    const own = hand.get(`${e.method} ${templateShape(e.path)}`);
    let level: FidelityLevel = s.level;
    let reason = s.reason;
    if (own) {
      level = own.fidelity ?? 'modelled';
      reason = undefined;
    } else {
      const reached = router.find(e.method, samplePath(e.path));
      // Removed by the provider (no route): answered as the provider now answers that URL.
      const removed = s.unrouted ? `${s.reason}; ` : '';
      if (reached && reached.value.source === 'modelled') {
        level = reached.value.route.fidelity ?? 'modelled';
        reason = `${removed}${removed ? 'a' : 'A'}nswered by the hand-written route ${e.method} ${reached.template}.`;
      } else if (!reached && s.unrouted) {
        level = 'modelled';
        reason = `${removed}answered as the provider answers an unknown URL.`;
      }
    }
    rows.push({ method: e.method, path: e.path, operation_id: e.id, level, status: level, ...(reason ? { reason } : {}) });
  }
  cache.set(def, rows);
  return rows;
}

/** Whether the operation counts toward the twin's coverage figure (its definition's `countedSurface`). */
export function countedSurface(def: TwinDefinition, entry: OperationEntry): boolean {
  const includes = def.countedSurface?.includes;
  return includes ? includes(entry) : !entry.excluded;
}

export type CoverageSummary = Record<FidelityLevel, number> & {
  /** Of the counted surface: how many operations, how many simulated (any level but `unsupported`). */
  counted: number;
  served: number;
};

export function summarize(def: TwinDefinition): CoverageSummary {
  const rows = coverageOf(def);
  if (def.operationTable) {
    // Every operation of such a surface counts (no published spec marks any as excluded).
    const out = { ...Object.fromEntries(FIDELITY_LEVELS.map((l) => [l, 0])), counted: rows.length, served: 0 } as CoverageSummary;
    for (const r of rows) {
      out[r.level]++;
      if (r.level !== 'unsupported') out.served++;
    }
    return out;
  }
  const entries = new Map((def.generic?.operations() ?? []).map((s) => [`${s.entry.method} ${s.entry.path}`, s.entry]));
  const out = { ...Object.fromEntries(FIDELITY_LEVELS.map((l) => [l, 0])), counted: 0, served: 0 } as CoverageSummary;
  for (const r of rows) {
    out[r.level]++;
    const e = entries.get(`${r.method} ${r.path}`);
    if (e && countedSurface(def, e)) {
      out.counted++;
      if (r.level !== 'unsupported') out.served++;
    }
  }
  return out;
}

/** One tool of the twin's MCP server with its level: the lowest of the operations it performs. */
export interface McpCoverageRow {
  tool: string;
  level: FidelityLevel;
  /** The operations it performs and which one sets its level, or why it is unsupported. */
  reason?: string;
}

/** The coverage of the twin's MCP tools (none when it serves no MCP), in the published order. */
export function mcpCoverageOf(def: TwinDefinition): McpCoverageRow[] {
  if (!def.mcp) return [];
  const levels = new Map(coverageOf(def).map((r) => [`${r.method} ${templateShape(r.path)}`, r.level]));
  // Hand-written routes the spec does not list (twin-only or newer than the spec) answer at their own level.
  for (const r of def.routes) {
    const key = `${r.method} ${templateShape(r.path)}`;
    if (!levels.has(key)) levels.set(key, r.fidelity ?? 'modelled');
  }
  const levelOf = (op: string) => {
    const space = op.indexOf(' ');
    return levels.get(`${op.slice(0, space)} ${templateShape(op.slice(space + 1))}`);
  };
  return def.mcp.tools.map((tool) => ({ tool: tool.name, ...toolLevel(tool, levelOf) }));
}
