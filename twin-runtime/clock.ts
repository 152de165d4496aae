// The environment clock as a twin sees it: frozen between advances (like a Stripe test clock),
// persisted in the twin's own file so a restarted container resumes at the same instant.

import type { RecordStore } from './record-store.js';

export class EnvironmentClock {
  private current: number;

  constructor(
    private readonly store: RecordStore,
    initial: Date,
  ) {
    const saved = store.getMeta('clock');
    this.current = saved !== undefined ? Number(saved) : initial.getTime();
    if (saved === undefined) store.setMeta('clock', String(this.current));
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Unix seconds (Stripe `created`, Slack `ts`). */
  nowSeconds(): number {
    return Math.floor(this.current / 1000);
  }

  nowMs(): number {
    return this.current;
  }

  /** Move forward; never backward (an earlier instant is ignored). */
  advanceTo(instant: Date | number): void {
    const t = typeof instant === 'number' ? instant : instant.getTime();
    if (t > this.current) {
      this.current = t;
      this.store.setMeta('clock', String(t));
    }
  }

  /** Only for reset: put the clock back to the environment's start. */
  resetTo(instant: Date): void {
    this.current = instant.getTime();
    this.store.setMeta('clock', String(this.current));
  }
}
