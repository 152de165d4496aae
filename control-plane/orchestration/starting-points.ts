// Where a new twin's starting state comes from: a seed file (seeds component) or a scenario's list
// of twins and seeds (scenarios component). Loaded lazily so orchestration does not depend on those
// components being present in a build.

import type { Db } from '../store/database.js';
import { HttpError, notFound } from '../http/errors.js';

export interface ResolvedSeed {
  file: string;
  /** The seed's frozen clock (ISO). */
  clock: string;
  twin: string;
  twin_version: string;
}

export interface ResolvedScenario {
  id: string;
  twins: { twin: string; seed_id: string | null }[];
}

function isMissingModule(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** The seed file a twin created with `seed_id` starts from (404 unknown seed, 409 not ready/usable). */
export async function resolveSeedFile(db: Db, dataDir: string, orgId: string, seedId: string): Promise<ResolvedSeed> {
  const path = '../seeds/files.js';
  let mod: { seedFileFor(db: Db, dataDir: string, orgId: string, seedId: string): ResolvedSeed };
  try {
    mod = await import(path);
  } catch (e) {
    if (isMissingModule(e)) throw notFound(`Seed ${seedId} not found.`);
    throw e;
  }
  return mod.seedFileFor(db, dataDir, orgId, seedId);
}

/** The twins a scenario asks for (404 for an unknown scenario or one of another organization). */
export async function resolveScenario(db: Db, orgId: string, scenarioId: string): Promise<ResolvedScenario> {
  const path = '../store/scenarios.js';
  let scenario: ResolvedScenario | undefined;
  try {
    const mod = (await import(path)) as { ScenarioStore: new (db: Db) => { get(orgId: string, id: string): ResolvedScenario | undefined } };
    scenario = new mod.ScenarioStore(db).get(orgId, scenarioId);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    if (!isMissingModule(e)) throw e;
  }
  if (!scenario) throw notFound(`Scenario ${scenarioId} not found.`);
  return scenario;
}
