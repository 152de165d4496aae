// Where generated seed files live, and the hook the environments component calls to start a twin
// from a seed: the file to copy, the clock to start at, and the release it was written for.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../store/database.js';
import { SeedStore, type SeedRow } from '../store/seeds.js';
import { conflict, notFound } from '../http/errors.js';
import { twinRelease } from './twin-releases.js';

export function seedsDir(dataDir: string): string {
  return join(dataDir, 'seeds');
}

export function seedFilePath(dataDir: string, seedId: string): string {
  return join(seedsDir(dataDir), `${seedId}.sqlite`);
}

/** `usable` of docs/decisions.md §7: the seed's storage version equals the twin's current one. */
export function isUsable(row: Pick<SeedRow, 'twin' | 'status' | 'storage_version'>): boolean {
  const release = twinRelease(row.twin);
  if (!release) return false;
  // A seed not generated yet will be written in the current storage version.
  if (row.status !== 'ready') return row.status !== 'failed';
  return row.storage_version === release.storageVersion;
}

export interface SeedFile {
  /** The seed SQLite file (twin storage format); copy it, never open it for writing. */
  file: string;
  /** The seed's frozen clock (ISO date-time); a twin loaded from it starts here. */
  clock: string;
  twin: string;
  twin_version: string;
}

/**
 * The seed file a new twin should start from. Throws 404 for an unknown seed (or one of another
 * organization) and 409 for a seed that is not ready or can no longer be loaded.
 */
export function seedFileFor(db: Db, dataDir: string, orgId: string, seedId: string): SeedFile {
  const row = new SeedStore(db).get(orgId, seedId);
  if (!row) throw notFound(`Seed ${seedId} not found.`);
  if (row.status !== 'ready') {
    throw conflict(
      row.status === 'failed'
        ? `Seed ${seedId} failed to generate (${row.failure ?? 'no reason recorded'}); it cannot be loaded.`
        : `Seed ${seedId} is still ${row.status}; wait until it is ready.`,
    );
  }
  if (!isUsable(row)) {
    throw conflict(`Seed ${seedId} was generated for storage version ${row.storage_version} of the ${row.twin} twin, which has moved on; generate it again.`);
  }
  const file = seedFilePath(dataDir, seedId);
  if (!existsSync(file)) throw conflict(`The file of seed ${seedId} is missing; generate it again.`);
  return { file, clock: row.clock!, twin: row.twin, twin_version: row.twin_version };
}
