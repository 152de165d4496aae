// The catalog: the twins this build ships (twin-runtime/registry.ts), as their definitions describe
// themselves. A twin whose module cannot be loaded is left out rather than failing the whole list.

import type { TwinSdk } from '../../twin-runtime/contract.js';
import { loadTwin, TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { coverageOf, type CoverageRow } from '../../twin-runtime/generic/coverage.js';

export interface CatalogTwin {
  slug: string;
  name: string;
  description: string;
  version: string;
  /** How the provider's official SDKs are pointed at the twin (templates; control-plane/client/sdk-snippets.ts renders them). */
  sdk: TwinSdk | null;
}

export async function catalogTwin(slug: string): Promise<CatalogTwin | undefined> {
  if (!(TWIN_SLUGS as readonly string[]).includes(slug)) return undefined;
  try {
    const def = await loadTwin(slug);
    return { slug: def.slug, name: def.name, description: def.description, version: def.version, sdk: def.sdk ?? null };
  } catch {
    return undefined;
  }
}

export async function catalog(): Promise<CatalogTwin[]> {
  const all = await Promise.all(TWIN_SLUGS.map((s) => catalogTwin(s)));
  return all.filter((t): t is CatalogTwin => t !== undefined);
}

/** The twin's coverage matrix (docs/decisions.md §14), from its routes and its generated operation table. */
export async function catalogCoverage(slug: string): Promise<CoverageRow[] | undefined> {
  if (!(TWIN_SLUGS as readonly string[]).includes(slug)) return undefined;
  try {
    return coverageOf(await loadTwin(slug));
  } catch {
    return undefined;
  }
}
