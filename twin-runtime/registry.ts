// The twins this build ships: every folder twins/<slug>/ with an index module that default-exports
// its definition (twin-runtime/contract.ts). Found by reading the folder once, at first use, so a
// new twin (`npm run new:twin -- <slug>`) is served, listed and tested with no edit elsewhere. This
// is the one module outside twins/ that names a twin folder: everything else asks it.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TwinDefinition } from './contract.js';

/** A slug is a folder name a URL, an environment variable prefix and a SQLite file name can all carry. */
export const TWIN_SLUG_PATTERN = /^[a-z](?:[a-z0-9-]{0,28}[a-z0-9])?$/;

/** twins/ beside this module's folder: the sources under tsx, dist/twins/ in a build. */
const TWINS_DIR = fileURLToPath(new URL('../twins/', import.meta.url));

function discover(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && TWIN_SLUG_PATTERN.test(d.name))
    .filter((d) => existsSync(join(dir, d.name, 'index.js')) || existsSync(join(dir, d.name, 'index.ts')))
    .map((d) => d.name)
    .sort();
}

/** Every twin's slug, in alphabetical order (the catalog's order). */
export const TWIN_SLUGS: readonly string[] = discover(TWINS_DIR);

const cache = new Map<string, Promise<TwinDefinition>>();

/** The folder of a twin's sources (a build's copy under dist/ when running from a build). */
export function twinFolder(slug: string): string {
  return join(TWINS_DIR, slug);
}

export function isTwinSlug(slug: string): boolean {
  return TWIN_SLUGS.includes(slug);
}

async function importTwin(slug: string): Promise<TwinDefinition> {
  const mod = (await import(`../twins/${slug}/index.js`)) as { default?: TwinDefinition };
  const def = mod.default;
  if (!def || typeof def !== 'object') throw new Error(`twins/${slug}/index does not default-export a twin definition.`);
  if (def.slug !== slug) throw new Error(`twins/${slug}/index defines the twin '${def.slug}'; a twin's slug is its folder's name.`);
  return def;
}

export function loadTwin(slug: string): Promise<TwinDefinition> {
  if (!isTwinSlug(slug)) return Promise.reject(new Error(`Unknown twin '${slug}'. Known twins: ${TWIN_SLUGS.join(', ')}.`));
  let def = cache.get(slug);
  if (!def) {
    def = importTwin(slug);
    // A module that failed to load is tried again next time (an edit under tsx, a file being built).
    def.catch(() => cache.delete(slug));
    cache.set(slug, def);
  }
  return def;
}

export function loadAllTwins(): Promise<TwinDefinition[]> {
  return Promise.all(TWIN_SLUGS.map((s) => loadTwin(s)));
}
