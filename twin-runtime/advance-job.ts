// A long advance as a job: `POST /_twin/advance` answers within its wait (200 when the advance is
// done, 202 with the job to follow otherwise) and the twin's event loop stays free while it runs.
// The twin's lifecycle runs in slices — `advance(ctx, t)` to successive instants t, each sized to
// take about SLICE_MS — with a turn of the event loop between slices. Running every step due in
// (clock, t1] then (t1, t2] is the same as running those due in (clock, t2] at once, because each
// twin's lifecycle runs what is due up to the instant it is given. Meanwhile provider requests are
// answered between slices (issue 33: a tenant's twin must keep answering while its clock moves),
// at the instant the advance has reached — time is passing for them as for the lifecycle, and
// what they create is due from there on; admin writes get a 409, and the job's progress is
// readable at `GET /_twin/advance/{id}`.
//
// The host (host.ts) owns one AdvanceJobs; each slice runs as an exclusive job of its pipeline. A
// job runs at batch priority (background-priority.ts): other tenants' requests come first.

import type { TwinContext, TwinDefinition, TwinResponse } from './contract.js';
import { atBatchPriority } from './background-priority.js';

export interface AdvanceJobView {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  from: string;
  to: string;
  /** The twin's clock now (where a failed job stopped). */
  clock: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

interface Job extends AdvanceJobView {
  done: Promise<void>;
}

/** Target duration of one slice of lifecycle work, in ms. */
const SLICE_MS = 25;
/** Smallest and first slice of simulated time, in ms. */
const MIN_SPAN_MS = 60_000;
const FIRST_SPAN_MS = 86_400_000;
/** Finished jobs remembered for their followers. */
const KEEP_FINISHED = 32;

export interface AdvanceHost {
  twin: TwinDefinition;
  ctx: TwinContext;
  /** Run one slice alone, between provider requests and outside their transaction. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AdvanceJobs {
  private current: Job | undefined;
  private readonly finished = new Map<string, Job>();
  private counter = 0;
  private stopped = false;

  constructor(private readonly host: AdvanceHost) {}

  /** The job under way, if any. */
  get running(): AdvanceJobView | undefined {
    return this.current ? view(this.current) : undefined;
  }

  get(id: string): AdvanceJobView | undefined {
    const job = this.current?.id === id ? this.current : this.finished.get(id);
    return job ? view(job) : undefined;
  }

  /**
   * Answer `POST /_twin/advance {to?, wall?, wait_ms?}`: 409 when the clock would move back or a
   * job is already running; else start a job and wait for it up to `wait_ms` (default 800): 200
   * with the clock when it is done, 500 with the lifecycle's error when it failed, 202 with the job
   * and `Location` when it is still running. `wall` (default: now) is the wall time at which `to`
   * holds: a living clock runs on from there, and is compared with `to` as it read then.
   */
  async request(body: { to?: unknown; wall?: unknown; wait_ms?: unknown }): Promise<TwinResponse> {
    const clock = this.host.ctx.clock;
    const wall = body?.wall === undefined ? clock.wallMs() : Date.parse(String(body.wall));
    if (Number.isNaN(wall)) return detail(400, '`wall` must be a date-time.');
    const to = body?.to === undefined ? new Date(Math.max(wall, clock.at(wall))) : new Date(String(body.to));
    if (Number.isNaN(to.getTime())) return detail(400, '`to` must be a date-time.');
    if (this.current) {
      return detail(409, `An advance to ${this.current.to} is running (job ${this.current.id}); wait for it to finish.`);
    }
    if (to.getTime() < clock.at(wall)) {
      return detail(409, `Cannot move the clock back from ${new Date(clock.at(wall)).toISOString()} to ${to.toISOString()}.`);
    }
    const waitMs = typeof body?.wait_ms === 'number' && body.wait_ms >= 0 ? body.wait_ms : 800;
    const job = this.start(to, wall);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([job.done, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    return this.answer(job.id)!;
  }

  /** The answer for a job: 200 done, 500 failed, 202 running (with Location). */
  answer(id: string): TwinResponse | undefined {
    const job = this.get(id);
    if (!job) return undefined;
    if (job.status === 'succeeded') return { status: 200, body: { clock: job.clock, job } };
    if (job.status === 'failed') return { status: 500, body: { detail: job.error, clock: job.clock, job } };
    return { status: 202, headers: { location: `/_twin/advance/${job.id}` }, body: { job } };
  }

  private start(to: Date, wall: number): Job {
    const clock = this.host.ctx.clock;
    const job = {
      id: `adv_${Date.now().toString(36)}_${++this.counter}`,
      status: 'running',
      from: clock.now().toISOString(),
      to: to.toISOString(),
      clock: clock.now().toISOString(),
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
    } as Job;
    this.current = job;
    job.done = this.run(job, to.getTime(), wall)
      .then(
        () => {
          job.status = 'succeeded';
        },
        (e: unknown) => {
          job.status = 'failed';
          job.error = e instanceof Error ? e.message : String(e);
        },
      )
      .finally(() => {
        job.clock = clock.now().toISOString();
        job.finished_at = new Date().toISOString();
        this.current = undefined;
        this.finished.set(job.id, job);
        if (this.finished.size > KEEP_FINISHED) this.finished.delete(this.finished.keys().next().value!);
      });
    return job;
  }

  private run(job: Job, to: number, wall: number): Promise<void> {
    return atBatchPriority(() => this.runSlices(job, to, wall));
  }

  private async runSlices(job: Job, to: number, wall: number): Promise<void> {
    const { twin, ctx } = this.host;
    let span = FIRST_SPAN_MS;
    // A living clock gets at least one slice: it may already read `to` (an advance to now), and
    // what fell due by then still runs. A frozen one at `to` has nothing due.
    let first = ctx.clock.mode === 'living';
    while (first || ctx.clock.nowMs() < to) {
      first = false;
      if (this.stopped) throw new Error('The twin stopped during the advance.');
      const next = Math.min(to, ctx.clock.nowMs() + span);
      const t0 = performance.now();
      // One commit per slice (each lifecycle step inside is a savepoint): a crash keeps the clock
      // and the records of every finished slice together.
      await this.host.exclusive(async () => {
        const db = ctx.store.db;
        db.exec('BEGIN');
        try {
          await twin.advance?.(ctx, new Date(next));
          // The last slice sets the clock as of the request's wall time (a living clock runs on from there).
          ctx.clock.advanceTo(next, next === to ? wall : undefined);
          db.exec('COMMIT');
        } catch (e) {
          if (db.inTransaction) db.exec('ROLLBACK');
          // The clock in memory follows what was committed.
          ctx.clock.reload();
          throw e;
        }
      });
      job.clock = ctx.clock.now().toISOString();
      const took = performance.now() - t0;
      // Grow while slices are short; shrink only for a clearly long one: a single lifecycle step
      // costs what it costs whatever the span, and a span shrunk below it only adds empty slices
      // (a commit and a due-step scan each), which made the per-event cost several times higher.
      if (took < SLICE_MS) span *= 2;
      else if (took > 4 * SLICE_MS) span = Math.max(MIN_SPAN_MS, Math.floor(span / 2));
      await turn();
    }
  }

  /** An admin write while a job runs: 409. */
  busyAdmin(): TwinResponse | undefined {
    return this.current ? detail(409, `An advance to ${this.current.to} is running (job ${this.current.id}); retry when it has finished.`) : undefined;
  }

  /** Stop between slices (the twin is closing); resolves once the job has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current?.done;
  }
}

function view(job: Job): AdvanceJobView {
  const { done: _done, ...rest } = job;
  return { ...rest };
}

function detail(status: number, sentence: string): TwinResponse {
  return { status, body: { detail: sentence } };
}
