// Rows handed over during one turn of the event loop, taken together at its end: the group the
// journal appends with one write() and the log writer commits in one transaction.

export type Done = (ok: boolean) => void;

export class TurnBatch<Row> {
  private rows: Row[] = [];
  private callbacks: Done[] = [];
  private scheduled = false;

  /** `flush` runs once at the end of the turn in which rows were first added. */
  constructor(private readonly flush: () => void) {}

  /** Add a row; `schedule: false` leaves the flush to the caller (a retry already pending). */
  add(row: Row, done: Done, schedule = true): void {
    this.rows.push(row);
    this.callbacks.push(done);
    if (schedule && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  get size(): number {
    return this.rows.length;
  }

  /** Everything added so far (undefined when nothing), and a fresh batch for what comes next. */
  take(): { rows: Row[]; callbacks: Done[] } | undefined {
    this.scheduled = false;
    if (this.rows.length === 0) return undefined;
    const taken = { rows: this.rows, callbacks: this.callbacks };
    this.rows = [];
    this.callbacks = [];
    return taken;
  }

  /** Put rows back ahead of any added since they were taken (their commit failed). */
  putBack(taken: { rows: Row[]; callbacks: Done[] }): void {
    this.rows = taken.rows.concat(this.rows);
    this.callbacks = taken.callbacks.concat(this.callbacks);
  }
}
