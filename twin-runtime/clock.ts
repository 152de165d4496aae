// The environment clock as a twin sees it (decisions §8, §15), persisted in the twin's own file so a
// restarted twin resumes where it should:
//   living  runs with wall time, moved forward by every advance (the default of environments): the
//           file keeps its offset from wall time (`clock_offset`), so after a restart the clock
//           reads what it would have read had the twin never stopped, as a provider's would.
//   frozen  moves only on advance (like a Stripe test clock), for byte-identical runs: the file
//           keeps the instant (`clock`).
// An advance never moves either back. Lifecycle events a living clock passes run on the host's
// lifecycle tick (host.ts), not here.

import type { RecordStore } from './record-store.js';

export const CLOCK_MODES = ['living', 'frozen'] as const;
export type ClockMode = (typeof CLOCK_MODES)[number];

export const isClockMode = (v: unknown): v is ClockMode => typeof v === 'string' && (CLOCK_MODES as readonly string[]).includes(v);

/** Wall time in ms; injectable so tests can move it without waiting. */
export type WallClock = () => number;

export class EnvironmentClock {
  /** Frozen: the instant. Living: the offset from wall time (instant = wall + offset). */
  private value: number;
  /** Living: the latest instant read, so a wall clock stepped back (NTP) never makes time run backwards. */
  private latest = Number.NEGATIVE_INFINITY;
  /**
   * Called with the instant of every advanceTo before it moves the clock (a lifecycle moves the
   * clock to each event's time before running it, an event already due included): the host's probe
   * for the next event due (TwinHost.nextDue) throws from here to stop at the first.
   */
  onAdvance: ((instantMs: number) => void) | undefined;

  /**
   * `initial` is the instant of a file that has no clock yet, holding at wall time `initialWall`
   * (default: now; a living clock runs on from there). A file written under the other mode
   * continues from where it stood: a frozen file started living runs on from its instant, a living
   * one started frozen stops at the instant it reads now.
   */
  constructor(
    private readonly store: RecordStore,
    initial: Date,
    readonly mode: ClockMode = 'frozen',
    private readonly wall: WallClock = Date.now,
    initialWall?: number,
  ) {
    const savedMode = store.getMeta('clock_mode');
    const offset = store.getMeta('clock_offset');
    const saved = store.getMeta('clock');
    const wallNow = this.wall();
    // The instant the file holds now: a living file's offset counts only while it was living.
    let instant: number;
    if (savedMode === 'living' && offset !== undefined) instant = wallNow + Number(offset);
    else if (saved !== undefined) instant = Number(saved);
    else instant = initial.getTime() + (mode === 'living' && initialWall !== undefined ? wallNow - initialWall : 0);
    this.value = mode === 'living' ? instant - wallNow : instant;
    if (savedMode !== mode || (mode === 'living' ? offset === undefined : saved === undefined)) this.save(instant);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Unix seconds (Stripe `created`, Slack `ts`). */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  nowMs(): number {
    if (this.mode === 'frozen') return this.value;
    const t = this.wall() + this.value;
    if (t > this.latest) this.latest = t;
    return this.latest;
  }

  /** Wall time as this clock reads it (Date.now unless injected). */
  wallMs(): number {
    return this.wall();
  }

  /** The instant the clock reads at wall time `wallMs` (a frozen clock reads the same at any). */
  at(wallMs: number): number {
    return this.mode === 'frozen' ? this.value : wallMs + this.value;
  }

  /** Living: instant minus wall time; frozen: undefined. */
  get offsetMs(): number | undefined {
    return this.mode === 'living' ? this.value : undefined;
  }

  /**
   * Move forward; never backward (an earlier instant is ignored). `wallMs` is the wall time at
   * which `instant` holds (default: now): a living clock runs on from there, so a caller that
   * decided the instant earlier (the control plane, for every twin of an environment) sets each
   * twin to the same offset.
   */
  advanceTo(instant: Date | number, wallMs?: number): void {
    const t = typeof instant === 'number' ? instant : instant.getTime();
    const wall = wallMs ?? this.wall();
    this.onAdvance?.(t);
    if (t > this.at(wall)) this.set(t, wall);
  }

  /** Only for reset (and a rolled-back advance): the clock reads `instant` at `wallMs` (default now). */
  resetTo(instant: Date, wallMs?: number): void {
    this.latest = Number.NEGATIVE_INFINITY;
    this.set(instant.getTime(), wallMs ?? this.wall());
  }

  /** Read the clock back from the file (after a rolled-back transaction that had moved it). */
  reload(): void {
    const offset = this.store.getMeta('clock_offset');
    const saved = this.store.getMeta('clock');
    if (this.mode === 'living' && offset !== undefined) this.value = Number(offset);
    else if (this.mode === 'frozen' && saved !== undefined) this.value = Number(saved);
    this.latest = Number.NEGATIVE_INFINITY;
  }

  private set(instant: number, wall: number): void {
    this.value = this.mode === 'living' ? instant - wall : instant;
    this.save(instant);
  }

  /** `clock` is the instant last set (a living file's reading at that moment); `clock_offset` what a living clock runs on. */
  private save(instant: number): void {
    this.store.setMeta('clock_mode', this.mode);
    this.store.setMeta('clock', String(instant));
    if (this.mode === 'living') this.store.setMeta('clock_offset', String(this.value));
  }
}
