// The release each shipped twin is at (behaviour `version`, `storageVersion`), loaded once at start
// so synchronous callers (a seed's `usable` flag, loading a seed into a new twin) can read it.

import { loadTwin, TWIN_SLUGS } from '../../twin-runtime/registry.js';

export interface TwinRelease {
  slug: string;
  version: string;
  storageVersion: number;
}

const releases = new Map<string, TwinRelease>();

/** Load every shipped twin's release; a twin that fails to load is simply absent. */
export async function loadTwinReleases(): Promise<Map<string, TwinRelease>> {
  await Promise.all(
    TWIN_SLUGS.map(async (slug) => {
      try {
        const def = await loadTwin(slug);
        releases.set(slug, { slug, version: def.version, storageVersion: def.storageVersion });
      } catch {
        // Not built yet (twins are added one by one); seeds for it fail with a sentence saying so.
      }
    }),
  );
  return releases;
}

export function twinRelease(slug: string): TwinRelease | undefined {
  return releases.get(slug);
}
