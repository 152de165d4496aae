// One environment clock shared by its twins (docs/decisions.md §8), kept equal to every twin's clock:
// moves of one environment's clock run one at a time (ClockLocks), and alignClocks brings the
// environment and all its running twins to the same instant after anything that could split them
// (an advance that failed half-way, a twin that restarted ahead of the environment).

import type { Logger } from 'pino';
import type { EnvironmentStore } from '../store/environments.js';
import type { TwinAdminClient } from './twin-admin.js';

/** Per-key serialisation of async work. */
export class ClockLocks {
  private readonly chains = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(fn);
    this.chains.set(key, run);
    try {
      return await run;
    } finally {
      if (this.chains.get(key) === run) this.chains.delete(key);
    }
  }
}

/**
 * Bring the environment clock and every ready twin's clock to the latest of them (nothing moves
 * back), and return that instant. Call inside the environment's clock lock.
 */
export async function alignClocks(store: EnvironmentStore, admin: TwinAdminClient, environmentId: string, log?: Logger): Promise<string> {
  const env = store.environmentById(environmentId);
  if (!env) throw new Error(`Environment ${environmentId} is gone.`);
  const ready = store.twinsOf(environmentId).filter((t) => t.state === 'ready' && t.address);
  const clocks = new Map<string, number>();
  for (const t of ready) {
    try {
      clocks.set(t.id, Date.parse((await admin.health(t.address!, t.admin_secret)).clock));
    } catch (err) {
      log?.warn({ err: (err as Error).message, twinId: t.id }, 'twin clock unreadable while aligning clocks');
    }
  }
  const target = Math.max(Date.parse(env.clock), ...clocks.values());
  for (const t of ready) {
    const at = clocks.get(t.id);
    if (at === undefined || at >= target) continue;
    const out = await admin.advanceAndWait(t.address!, t.admin_secret, new Date(target)).catch((e: Error) => ({ ok: false as const, detail: e.message }));
    if (!out.ok) log?.warn({ twinId: t.id, detail: out.detail }, 'twin could not catch up with the environment clock');
  }
  const iso = new Date(target).toISOString();
  if (iso !== env.clock) store.updateEnvironment(environmentId, { clock: iso });
  return iso;
}
