// The gateway as the control plane's thread sees it: the same calls the reconciler makes (open a
// twin's URL, point it at a workload, close it), carried out on the gateway's own thread
// (worker.ts), plus the log's housekeeping (purge a deleted environment, retention), a bounded
// drain for shutdown, and stats() — a synchronous read of shared counters (requests per twin, the
// log writer's queue depth) for metrics.
//
// Why a thread and not the event loop of the API: a synchronous SQLite scan on the API's thread
// stopped every twin URL for its whole duration (issue 20: 5,119 → 43 req/s while another tenant
// listed logs). A worker thread has its own event loop, so API work cannot delay a proxied request;
// scripts/bench/tenant-isolation.ts measures it.

import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.js';
import { dirname } from 'node:path';
import { journalDirFor } from './log-journal.js';
import type { Logger } from 'pino';
import type { GatewayTwin } from './gateway.js';
import {
  MAX_COUNTED_TWINS,
  STAT,
  waitAsync,
  type FromWorker,
  type GatewayWorkerData,
  type LogWriterWorkerData,
  type ToLogWriter,
  type ToWorker,
} from './protocol.js';

/** What the reconciler needs of the gateway. */
export interface GatewayControl {
  readonly hostRouting: boolean;
  open(twin: GatewayTwin, preferredPort?: number | null): Promise<{ url: string; port: number | null; host?: string }>;
  setTarget(twinId: string, address: string | undefined): void;
  targetOf(twinId: string): string | undefined;
  has(twinId: string): boolean;
  close(twinId: string): Promise<void>;
}

export interface GatewayHostOptions extends Omit<GatewayWorkerData, 'stats' | 'journalDir'> {
  logFile: string;
  defaultRetentionDays: number;
  bodyCapBytes: number;
  /** Where the log's journal lives; default: journalDirFor(the log file's directory). */
  journalDir?: string;
  log?: Logger;
  /** Per twin: the credentials its log must not keep, and how long its environment keeps rows. */
  describe?: (twin: GatewayTwin) => Promise<{ redact?: GatewayTwin['redact']; retentionDays?: number | null; ownHost?: boolean }>;
  /** Milliseconds between checkpoints of the log's write-ahead log. */
  checkpointMs?: number;
}

export interface TwinRequestCount {
  twin_id: string;
  environment_id: string;
  organization_id: string;
  twin_slug: string;
  requests: number;
}

export interface GatewayStats {
  /** Requests each open twin URL has received since it opened. */
  twins: TwinRequestCount[];
  requests_in_flight: number;
  /** Time the gateway's thread has spent working (not waiting), ms since it started. */
  thread_busy_ms: number;
  log: {
    /** Rows waiting for their commit (their answers wait with them). */
    queue_depth: number;
    written: number;
    failed: number;
    expired: number;
    purged: number;
    bodies_dropped: number;
    /** Transactions committed and the time spent committing (ms): the log write's cost. */
    commits: number;
    commit_ms: number;
    writable: boolean;
  };
}

interface Mirror {
  twin: GatewayTwin;
  port: number | null;
  target?: string;
  slot: number;
}

export class GatewayHost implements GatewayControl {
  private worker: Worker | undefined;
  private logWriter: Worker | undefined;
  private logWriterReady: Promise<Worker> | undefined;
  private journalDir: string | undefined;
  private readonly shared = new SharedArrayBuffer(8 * (STAT.firstSlot + MAX_COUNTED_TWINS));
  private readonly counters = new BigInt64Array(this.shared);
  private readonly routes = new Map<string, Mirror>();
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private sharedListenerPort: number | undefined;
  private stopping = false;
  /** Log writer threads started so far (a restarted one counts its replay as applied). */
  private logWriterStarts = 0;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: GatewayHostOptions) {}

  get hostRouting(): boolean {
    return this.options.domain !== undefined;
  }

  get sharedPort(): number | undefined {
    return this.sharedListenerPort;
  }

  /** Start the gateway's thread (and the log writer's); in cluster mode this opens the shared listener. */
  async start(): Promise<void> {
    this.ready ??= this.spawn();
    await this.ready;
  }

  private async spawn(): Promise<void> {
    const { log: _log, describe: _describe, checkpointMs: _c, logFile: _f, defaultRetentionDays: _d, bodyCapBytes: _b, journalDir: _j, ...rest } = this.options;
    await this.startLogWriter();
    const data: GatewayWorkerData = { ...rest, sharedPort: this.sharedListenerPort ?? rest.sharedPort, journalDir: this.journalDir!, stats: this.shared };
    const worker = startThread(import.meta.url, 'worker', { workerData: data, name: 'twins-gateway' });
    this.worker = worker;
    await this.whenReady(worker);
    worker.on('error', (err) => this.options.log?.error({ err }, 'gateway thread failed'));
    worker.once('exit', (code) => void this.onExit(worker, code));
    const { sharedPort } = (await this.call({ op: 'start', id: 0 })) as { sharedPort?: number };
    this.sharedListenerPort = sharedPort;
  }

  /** Resolve with the thread's 'ready' message; later messages go to onMessage. */
  private whenReady(worker: Worker): Promise<Extract<FromWorker, { op: 'ready' }>> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      worker.once('error', onError);
      worker.on('message', (m: FromWorker) => {
        if (m.op === 'ready') {
          worker.off('error', onError);
          resolve(m);
        } else this.onMessage(m);
      });
    });
  }

  /**
   * The log writer's thread (log-writer-worker.ts): it replays the journal first, so entries
   * answered before a crash are in SQLite before anything new arrives.
   */
  private startLogWriter(): Promise<Worker> {
    this.logWriterReady ??= (async () => {
      this.journalDir ??= this.options.journalDir ?? journalDirFor(dirname(this.options.logFile));
      const data: LogWriterWorkerData = {
        logFile: this.options.logFile,
        journalDir: this.journalDir,
        defaultRetentionDays: this.options.defaultRetentionDays,
        bodyCapBytes: this.options.bodyCapBytes,
        checkpointMs: this.options.checkpointMs ?? 1000,
        countReplay: this.logWriterStarts > 0,
        stats: this.shared,
      };
      this.logWriterStarts += 1;
      const writer = startThread(import.meta.url, 'log-writer-worker', { workerData: data, name: 'twins-log-writer' });
      const ready = await this.whenReady(writer);
      // Segment numbers only grow: a restarted writer must not hand out one a live gateway uses.
      if (Atomics.load(this.counters, STAT.nextSegment) < BigInt(ready.nextSegment ?? 1)) {
        Atomics.store(this.counters, STAT.nextSegment, BigInt(ready.nextSegment ?? 1));
      }
      if (ready.replayed) this.options.log?.info({ entries: ready.replayed }, 'request log: journal replayed');
      writer.on('error', (err) => this.options.log?.error({ err }, 'request log writer failed'));
      writer.once('exit', (code) => void this.onLogWriterExit(writer, code));
      this.logWriter = writer;
      return writer;
    })();
    return this.logWriterReady;
  }

  /** The writer died (it should not): start it again; it goes on from the position SQLite holds. */
  private async onLogWriterExit(writer: Worker, code: number): Promise<void> {
    if (this.logWriter !== writer) return;
    this.logWriter = undefined;
    this.logWriterReady = undefined;
    for (const [id, p] of this.writerPending) {
      this.writerPending.delete(id);
      p.reject(new Error('The request log writer exited.'));
    }
    if (this.stopping) return;
    this.options.log?.error({ code }, 'request log writer exited; starting it again');
    await this.startLogWriter();
  }

  private readonly writerPending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private async callWriter(msg: ToLogWriter & { id: number }): Promise<unknown> {
    const writer = await this.startLogWriter();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.writerPending.set(id, { resolve, reject });
      writer.postMessage({ ...msg, id });
    });
  }

  private postWriter(msg: ToLogWriter): void {
    void this.startLogWriter().then((w) => w.postMessage(msg));
  }

  /**
   * Resolves once every entry journaled before the call is in SQLite (readers call it first, so a
   * listing always shows the requests already answered); gives up after `timeoutMs`.
   */
  async awaitLogged(timeoutMs = 5000): Promise<void> {
    const target = Atomics.load(this.counters, STAT.written);
    const until = performance.now() + timeoutMs;
    for (;;) {
      const applied = Atomics.load(this.counters, STAT.applied);
      const left = until - performance.now();
      // The writer cannot commit now (a full disk): readers get what is stored rather than wait.
      if (applied >= target || left <= 0 || Atomics.load(this.counters, STAT.writable) === 0n) return;
      if (!this.logWriter) {
        // Between a writer's crash and its successor: wait for the successor, which goes on counting.
        if (this.stopping || !this.logWriterReady) return;
        await this.logWriterReady.catch(() => undefined);
        continue;
      }
      // The writer reads the journal now rather than at its next interval.
      Atomics.add(this.counters, STAT.readWanted, 1n);
      Atomics.notify(this.counters, STAT.readWanted);
      await waitAsync(this.counters, STAT.applied, applied, left).value;
    }
  }

  private onMessage(m: FromWorker): void {
    if (m.op === 'reply') {
      const p = this.pending.get(m.id) ?? this.writerPending.get(m.id);
      this.writerPending.delete(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.value);
    } else if (m.op === 'log') {
      this.options.log?.[m.level]({ err: m.err }, m.msg);
    }
  }

  /** The thread died (it should not): fail what waited on it, start a new one, reopen every URL. */
  private async onExit(worker: Worker, code: number): Promise<void> {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new Error('The gateway thread exited.'));
    this.pending.clear();
    if (this.stopping) return;
    this.options.log?.error({ code }, 'gateway thread exited; starting it again');
    this.ready = this.spawn();
    await this.ready;
    for (const m of this.routes.values()) {
      await this.call({ op: 'open', id: 0, twin: { ...m.twin, slot: m.slot >= 0 ? m.slot : undefined }, preferredPort: m.port });
      if (m.target) this.post({ op: 'setTarget', twinId: m.twin.twinId, address: m.target });
    }
  }

  private call(msg: ToWorker & { id: number }): Promise<unknown> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error('The gateway is not running.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...msg, id });
    });
  }

  private post(msg: ToWorker): void {
    this.worker?.postMessage(msg);
  }

  async open(twin: GatewayTwin, preferredPort?: number | null): Promise<{ url: string; port: number | null; host?: string }> {
    await this.start();
    const extra = (await this.options.describe?.(twin)) ?? {};
    let mirror = this.routes.get(twin.twinId);
    if (!mirror) {
      const slot = this.freeSlots.pop() ?? (this.nextSlot < MAX_COUNTED_TWINS ? this.nextSlot++ : -1);
      if (slot >= 0) Atomics.store(this.counters, STAT.firstSlot + slot, 0n);
      mirror = { twin: { ...twin, redact: extra.redact, ownHost: extra.ownHost }, port: null, slot };
      this.routes.set(twin.twinId, mirror);
    }
    const opened = (await this.call({
      op: 'open',
      id: 0,
      twin: { ...twin, redact: extra.redact, ownHost: extra.ownHost, slot: mirror.slot >= 0 ? mirror.slot : undefined },
      preferredPort,
    })) as { url: string; port: number | null; host?: string };
    this.postWriter({
      op: 'retention',
      entries: [{ environmentId: twin.environmentId, organizationId: twin.organizationId, days: extra.retentionDays ?? null }],
    });
    mirror.port = opened.port;
    return opened;
  }

  setTarget(twinId: string, address: string | undefined): void {
    const m = this.routes.get(twinId);
    if (!m || m.target === address) return;
    m.target = address;
    this.post({ op: 'setTarget', twinId, address });
  }

  targetOf(twinId: string): string | undefined {
    return this.routes.get(twinId)?.target;
  }

  has(twinId: string): boolean {
    return this.routes.has(twinId);
  }

  async close(twinId: string): Promise<void> {
    const m = this.routes.get(twinId);
    if (!m) return;
    this.routes.delete(twinId);
    if (m.slot >= 0) this.freeSlots.push(m.slot);
    await this.call({ op: 'close', id: 0, twinId }).catch(() => {});
  }

  /** The environment is deleted: its log rows go (at once for readers, step by step on disk). */
  purgeEnvironment(environmentId: string): void {
    this.postWriter({ op: 'purge', environmentId });
  }

  /** Retention of environments whose organization changed plan. */
  setRetention(entries: { environmentId: string; organizationId: string; days: number | null }[]): void {
    if (entries.length > 0) this.postWriter({ op: 'retention', entries });
  }

  /** Run one maintenance step now (tests). */
  async maintain(now?: Date): Promise<void> {
    await this.awaitLogged();
    await this.callWriter({ op: 'maintain', id: 0, now: now?.toISOString() });
  }

  /**
   * Stop taking connections and let requests already read be answered and logged, for at most
   * `timeoutMs`; resolves with how many were still unanswered then.
   */
  async drain(timeoutMs: number): Promise<number> {
    if (!this.worker) return 0;
    const started = performance.now();
    const { unanswered } = (await this.call({ op: 'drain', id: 0, timeoutMs })) as { unanswered: number };
    await this.awaitLogged(Math.max(1000, timeoutMs - (performance.now() - started)));
    return unanswered;
  }

  /** Close every URL, commit the log, stop both threads. */
  async closeAll(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (worker) {
      await this.call({ op: 'closeAll', id: 0 }).catch(() => {});
      this.worker = undefined;
      await worker.terminate();
    }
    this.routes.clear();
    const writer = this.logWriter;
    if (writer) {
      await this.awaitLogged(2000);
      // The bound's timer is cleared once the writer answers: left running it kept the process alive 5 s.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.callWriter({ op: 'close', id: 0 }).catch(() => {}), new Promise((r) => (timer = setTimeout(r, 5000)))]);
      clearTimeout(timer);
      this.logWriter = undefined;
      this.logWriterReady = undefined;
      await writer.terminate();
    }
  }

  /** Counters read from shared memory: no message, no wait (for /metrics). */
  stats(): GatewayStats {
    const n = (i: number) => Number(Atomics.load(this.counters, i));
    const twins: TwinRequestCount[] = [];
    for (const m of this.routes.values()) {
      twins.push({
        twin_id: m.twin.twinId,
        environment_id: m.twin.environmentId,
        organization_id: m.twin.organizationId,
        twin_slug: m.twin.slug,
        requests: m.slot >= 0 ? n(STAT.firstSlot + m.slot) : 0,
      });
    }
    return {
      twins,
      requests_in_flight: n(STAT.inFlight),
      thread_busy_ms: n(STAT.busyMicros) / 1000,
      log: {
        queue_depth: n(STAT.queueDepth),
        written: n(STAT.written),
        failed: n(STAT.failed),
        expired: n(STAT.expired),
        purged: n(STAT.purged),
        bodies_dropped: n(STAT.bodiesDropped),
        commits: n(STAT.commits),
        commit_ms: n(STAT.commitMicros) / 1000,
        writable: n(STAT.writable) === 1,
      },
    };
  }
}
