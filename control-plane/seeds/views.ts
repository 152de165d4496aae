// A seed row as the API shows it (the contract's Seed), and the suggestion list of every twin.

import type { SeedRow } from '../store/seeds.js';
import { loadTwin, TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { isUsable } from './files.js';

export interface SeedView {
  id: string;
  name: string;
  twin: string;
  prompt: string;
  status: SeedRow['status'];
  usable: boolean;
  created_at: string;
  failure: string | null;
  twin_version: string;
  size_bytes: number;
  completed_at: string | null;
}

export function seedView(row: SeedRow): SeedView {
  return {
    id: row.id,
    name: row.name,
    twin: row.twin,
    prompt: row.prompt,
    status: row.status,
    usable: isUsable(row),
    created_at: row.created_at,
    failure: row.failure,
    twin_version: row.twin_version,
    size_bytes: row.size_bytes,
    completed_at: row.completed_at,
  };
}

export interface SuggestionView {
  twin: string;
  name: string;
  prompt: string;
}

/** Suggestions of every shipped twin that loads (optionally one twin), in catalog order. */
export async function listSuggestions(twin?: string): Promise<SuggestionView[]> {
  const out: SuggestionView[] = [];
  for (const slug of TWIN_SLUGS) {
    if (twin !== undefined && slug !== twin) continue;
    try {
      const def = await loadTwin(slug);
      for (const s of def.suggestions ?? []) out.push({ twin: slug, name: s.name, prompt: s.prompt });
    } catch {
      // A twin not in this build has no suggestions.
    }
  }
  return out;
}
