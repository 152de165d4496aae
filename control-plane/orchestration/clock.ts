// One environment clock shared by its twins (docs/decisions.md §8, §15), kept equal to every twin's clock:
// moves of one environment's clock run one at a time (ClockLocks), and alignClocks brings the
// environment and all its running twins to the same place after anything that could split them
// (an advance that failed half-way, a twin that restarted ahead of the environment).
//
// A frozen clock stands at its instant (`clock`) until an advance. A living one read `clock` at
// wall time `clock_wall` and runs on with wall time: what it is at is its offset from wall time,
// the same in the control plane and in every twin (each twin keeps it in its file), and every
// move sends the twins the instant together with the wall time it holds at (`wall`), so all of
// them run at exactly the same offset.

import type { Logger } from 'pino';
import type { EnvironmentRow, EnvironmentStore } from '../store/environments.js';
import type { TwinAdminClient, TwinClockReading } from './twin-admin.js';

export type StoredClock = Pick<EnvironmentRow, 'clock' | 'clock_mode' | 'clock_wall'>;

/** The environment clock's instant (ms) at wall time `wallMs`. */
export function clockAt(env: StoredClock, wallMs = Date.now()): number {
  const clock = Date.parse(env.clock);
  if (env.clock_mode !== 'living' || !env.clock_wall) return clock;
  return clock + (wallMs - Date.parse(env.clock_wall));
}

/** The environment clock's instant now, as the API shows it. */
export function clockNow(env: StoredClock): string {
  return new Date(clockAt(env)).toISOString();
}

/** The columns that make the clock read `instantMs` at wall time `wallMs`. */
export function clockColumns(mode: EnvironmentRow['clock_mode'], instantMs: number, wallMs: number): Pick<EnvironmentRow, 'clock' | 'clock_wall'> {
  return { clock: new Date(instantMs).toISOString(), clock_wall: mode === 'living' ? new Date(wallMs).toISOString() : null };
}

/**
 * Where a clock stands, comparable between clocks of one environment: a frozen clock's instant, a
 * living clock's offset from wall time.
 */
export function clockPosition(mode: EnvironmentRow['clock_mode'], instantMs: number, wallMs: number): number {
  return mode === 'living' ? instantMs - wallMs : instantMs;
}

/** The environment's position (clockPosition). */
export function environmentPosition(env: StoredClock): number {
  return env.clock_mode === 'living' && env.clock_wall ? Date.parse(env.clock) - Date.parse(env.clock_wall) : Date.parse(env.clock);
}

/** A twin's position from its health (a twin that does not say its wall time is read as of now). */
export function twinPosition(mode: EnvironmentRow['clock_mode'], reading: TwinClockReading): number {
  return clockPosition(mode, Date.parse(reading.clock), reading.wall ? Date.parse(reading.wall) : Date.now());
}

/** The instant a position reads at wall time `wallMs`. */
export function instantOf(mode: EnvironmentRow['clock_mode'], position: number, wallMs: number): number {
  return mode === 'living' ? wallMs + position : position;
}

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
 * back), and return the instant it reads now. Call inside the environment's clock lock.
 */
export async function alignClocks(store: EnvironmentStore, admin: TwinAdminClient, environmentId: string, log?: Logger): Promise<string> {
  const env = store.environmentById(environmentId);
  if (!env) throw new Error(`Environment ${environmentId} is gone.`);
  const mode = env.clock_mode;
  const ready = store.twinsOf(environmentId).filter((t) => t.state === 'ready' && t.address);
  const positions = new Map<string, number>();
  for (const t of ready) {
    try {
      positions.set(t.id, twinPosition(mode, await admin.health(t.address!, t.admin_secret)));
    } catch (err) {
      log?.warn({ err: (err as Error).message, twinId: t.id }, 'twin clock unreadable while aligning clocks');
    }
  }
  const own = environmentPosition(env);
  const target = Math.max(own, ...positions.values());
  const wall = Date.now();
  const instant = instantOf(mode, target, wall);
  for (const t of ready) {
    const at = positions.get(t.id);
    if (at === undefined || at >= target) continue;
    const out = await admin
      .advanceAndWait(t.address!, t.admin_secret, new Date(instant), mode === 'living' ? new Date(wall) : undefined)
      .catch((e: Error) => ({ ok: false as const, detail: e.message }));
    if (!out.ok) log?.warn({ twinId: t.id, detail: out.detail }, 'twin could not catch up with the environment clock');
  }
  if (target !== own) store.updateEnvironment(environmentId, clockColumns(mode, instant, wall));
  return new Date(instant).toISOString();
}
