// The catalog: the twins this build ships (twin-runtime/registry.ts), as their definitions describe
// themselves. A twin whose module cannot be loaded is left out rather than failing the whole list.

import type { TwinDefinition, TwinSdk } from '../../twin-runtime/contract.js';
import { loadTwin, TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { coverageOf, mcpCoverageOf, type CoverageRow } from '../../twin-runtime/generic/coverage.js';

export interface CatalogTwin {
  slug: string;
  name: string;
  description: string;
  version: string;
  /** How the provider's official SDKs are pointed at the twin (templates; control-plane/client/sdk-snippets.ts renders them). */
  sdk: TwinSdk | null;
  /** The provider's own MCP server the twin mirrors at `/mcp` (decisions §15); null when it has none. */
  mcp: CatalogMcp | null;
}

export interface CatalogMcp {
  server: string;
  version: string;
  source: string;
  tools: number;
  /** Tools answered through the twin's model (any level but `unsupported`). */
  simulated: number;
}

function catalogMcp(def: TwinDefinition): CatalogMcp | null {
  if (!def.mcp) return null;
  const rows = mcpCoverageOf(def);
  const { name, version, source } = def.mcp.server;
  return { server: name, version, source, tools: rows.length, simulated: rows.filter((r) => r.level !== 'unsupported').length };
}

export async function catalogTwin(slug: string): Promise<CatalogTwin | undefined> {
  if (!(TWIN_SLUGS as readonly string[]).includes(slug)) return undefined;
  try {
    const def = await loadTwin(slug);
    return { slug: def.slug, name: def.name, description: def.description, version: def.version, sdk: def.sdk ?? null, mcp: catalogMcp(def) };
  } catch {
    return undefined;
  }
}

export async function catalog(): Promise<CatalogTwin[]> {
  const all = await Promise.all(TWIN_SLUGS.map((s) => catalogTwin(s)));
  return all.filter((t): t is CatalogTwin => t !== undefined);
}

/**
 * The twin's coverage matrix (docs/decisions.md §14), from its routes and its generated operation
 * table, then its MCP tools as rows of method `MCP` on `/mcp` (operation_id: the tool's name).
 */
export async function catalogCoverage(slug: string): Promise<CoverageRow[] | undefined> {
  if (!(TWIN_SLUGS as readonly string[]).includes(slug)) return undefined;
  try {
    const def = await loadTwin(slug);
    const tools = mcpCoverageOf(def).map(
      (r): CoverageRow => ({ method: 'MCP', path: '/mcp', operation_id: r.tool, level: r.level, status: r.level, ...(r.reason ? { reason: r.reason } : {}) }),
    );
    return [...coverageOf(def), ...tools];
  } catch {
    return undefined;
  }
}
