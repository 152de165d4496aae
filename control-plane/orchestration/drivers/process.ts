// The process driver (embedded default): each twin is a child process running the compiled
// twin-runtime (`node dist/twin-runtime/main.js`) on a loopback port. A state file per workload
// (pid, labels, data file) lets a later run find and stop the orphans of an earlier one.

import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environmentSettingArgs, type DriverEvent, type TwinDriver, type TwinWorkloadSpec, type WorkloadStatus } from './driver.js';

export interface ProcessDriverOptions {
  /** Directory for the per-workload state files (`<twinId>.json`). */
  stateDir: string;
  /** The compiled runtime entry; defaults to `<project>/dist/twin-runtime/main.js`. */
  runtimeEntry?: string;
  /** How long a child may take to print its listening line. */
  startTimeoutMs?: number;
  /** How long a stopped child gets between SIGTERM and SIGKILL. */
  stopGraceMs?: number;
  /**
   * Standby children kept per twin slug once that slug has started once: the runtime and the twin
   * module are already loaded, so a start only opens the data file and listens (0 turns it off).
   */
  warmPerSlug?: number;
}

/** A standby child: twin loaded, waiting on stdin for what to serve. */
interface Standby {
  child: ChildProcess;
  stderr: { tail: string };
}

interface StateFile {
  twinId: string;
  pid: number;
  dataFile: string;
  address: string;
  labels: Record<string, string>;
  startedAt: string;
}

interface Workload {
  spec: TwinWorkloadSpec;
  child: ChildProcess;
  address?: string;
  state: 'starting' | 'running' | 'exited';
  exitCode?: number | null;
  message?: string;
  /** Set when we asked it to stop, so its exit is not reported as a crash. */
  stopping: boolean;
  exited: Promise<void>;
}

/** The project root: the nearest folder above this file that holds package.json. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above the process driver');
    dir = up;
  }
  return dir;
}

export function defaultRuntimeEntry(): string {
  return join(projectRoot(), 'dist', 'twin-runtime', 'main.js');
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A pid from a state file is ours only if it still runs the twin runtime on that data file (pids get reused). */
function runsWorkload(pid: number, dataFile: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.some((a) => a.endsWith('main.js')) && (cmdline.includes(dataFile) || cmdline.includes('--standby'));
  } catch {
    // No /proc (macOS): trust the pid while it is alive.
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** How long no twin may have started before the warm pool is refilled. */
const REFILL_QUIET_MS = 100;

export class ProcessDriver implements TwinDriver {
  readonly name = 'process' as const;
  readonly events = new EventEmitter();
  private readonly workloads = new Map<string, Workload>();
  private readonly entry: string;
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly warmPerSlug: number;
  private readonly warm = new Map<string, Standby[]>();
  /** Slugs whose standby was used since the pool was last refilled. */
  private readonly used = new Set<string>();
  private refillTimer: NodeJS.Timeout | undefined;
  private startsInFlight = 0;
  private closed = false;

  constructor(private readonly options: ProcessDriverOptions) {
    mkdirSync(options.stateDir, { recursive: true });
    this.entry = options.runtimeEntry ?? defaultRuntimeEntry();
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.stopGraceMs = options.stopGraceMs ?? 3_000;
    this.warmPerSlug = options.warmPerSlug ?? 0;
  }

  private childEnv(adminSecret?: string, apiKey?: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...extra,
      PATH: process.env.PATH ?? '',
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      ...(adminSecret ? { TWIN_ADMIN_SECRET: adminSecret } : {}),
      ...(apiKey ? { TWIN_API_KEY: apiKey } : {}),
      // The child exits when our end of its stdin closes, so a crashed control plane leaves no twins.
      TWIN_EXIT_WITH_PARENT: '1',
      // It also answers on its local socket, where the gateway reaches it (twin-runtime/local-socket.ts).
      TWIN_LOCAL_SOCKET: '1',
      ...(process.env.TWIN_DELIVERY_BACKOFF_MS ? { TWIN_DELIVERY_BACKOFF_MS: process.env.TWIN_DELIVERY_BACKOFF_MS } : {}),
    };
  }

  private spawnStandby(slug: string): void {
    if (this.closed || !existsSync(this.entry)) return;
    const child = spawn(process.execPath, [this.entry, '--twin', slug, '--standby'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: this.childEnv(),
    });
    const standby: Standby = { child, stderr: { tail: '' } };
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (standby.stderr.tail = (standby.stderr.tail + chunk).slice(-2000)));
    child.stdin!.on('error', () => {});
    child.once('exit', () => {
      const list = this.warm.get(slug);
      const i = list?.indexOf(standby) ?? -1;
      if (list && i !== -1) list.splice(i, 1);
    });
    const list = this.warm.get(slug) ?? [];
    list.push(standby);
    this.warm.set(slug, list);
  }

  /** Keep `warmPerSlug` standby children for a slug that is in use. */
  private refill(slug: string): void {
    const have = this.warm.get(slug)?.length ?? 0;
    for (let i = have; i < this.warmPerSlug; i++) this.spawnStandby(slug);
  }

  /**
   * Refill the pool once starts have been quiet for REFILL_QUIET_MS. Loading a standby takes a few
   * hundred ms of CPU; refilled after each start, while the other twins of the environment still
   * started and answered their first admin calls, a 10-twin environment took ~1.4 s to ready on 2
   * cores instead of ~0.4 s.
   */
  private refillWhenQuiet(slug: string): void {
    if (this.warmPerSlug === 0) return;
    this.used.add(slug);
    clearTimeout(this.refillTimer);
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      if (this.startsInFlight > 0) return; // the last of them to finish schedules the refill
      for (const s of this.used) this.refill(s);
      this.used.clear();
    }, REFILL_QUIET_MS);
    this.refillTimer.unref();
  }

  private takeStandby(slug: string): Standby | undefined {
    const list = this.warm.get(slug);
    while (list && list.length > 0) {
      const s = list.shift()!;
      if (s.child.exitCode === null && s.child.signalCode === null) return s;
    }
    return undefined;
  }

  private stateFile(twinId: string): string {
    return join(this.options.stateDir, `${twinId}.json`);
  }

  private readState(twinId: string): StateFile | undefined {
    try {
      return JSON.parse(readFileSync(this.stateFile(twinId), 'utf8')) as StateFile;
    } catch {
      return undefined;
    }
  }

  private allStates(): StateFile[] {
    const out: StateFile[] = [];
    for (const f of readdirSync(this.options.stateDir)) {
      if (!f.endsWith('.json')) continue;
      const s = this.readState(f.slice(0, -'.json'.length));
      if (s) out.push(s);
    }
    return out;
  }

  /** Standby children ready (or loading) for a slug. */
  standbyCount(slug: string): number {
    return this.warm.get(slug)?.length ?? 0;
  }

  /** The child's pid (tests use it to kill a twin the hard way). */
  pidOf(twinId: string): number | undefined {
    return this.workloads.get(twinId)?.child.pid;
  }

  async start(spec: TwinWorkloadSpec): Promise<{ address: string }> {
    if (this.closed) throw new Error('The process driver is closed.');
    const current = this.workloads.get(spec.twinId);
    if (current && current.state === 'running' && current.address) return { address: current.address };
    if (current) await this.stop(spec.twinId);
    await this.killOrphan(spec.twinId);
    if (!existsSync(this.entry)) {
      throw new Error(`The twin runtime is not built (${this.entry} is missing); run \`npm run build\`.`);
    }
    mkdirSync(dirname(spec.dataFile), { recursive: true });

    this.startsInFlight++;
    try {
      return await this.startChild(spec);
    } finally {
      this.startsInFlight--;
      this.refillWhenQuiet(spec.slug);
    }
  }

  private async startChild(spec: TwinWorkloadSpec): Promise<{ address: string }> {
    const standby = this.takeStandby(spec.slug);
    let child: ChildProcess;
    const stderr = standby?.stderr ?? { tail: '' };
    if (standby) {
      child = standby.child;
      child.stdin!.write(
        JSON.stringify({
          data: spec.dataFile,
          seed: spec.seedFile,
          clock: spec.clockStart.toISOString(),
          ...(spec.clockNow ? { clock_now: spec.clockNow.toISOString() } : {}),
          ...(spec.clockWall ? { clock_wall: spec.clockWall.toISOString() } : {}),
          ...(spec.clockMode ? { clock_mode: spec.clockMode } : {}),
          ...(spec.fidelity ? { fidelity: spec.fidelity } : {}),
          public_url: spec.publicUrl,
          admin_secret: spec.adminSecret,
          ...(spec.apiKey ? { api_key: spec.apiKey } : {}),
          port: 0,
          host: '127.0.0.1',
          env: spec.env,
        }) + '\n',
      );
    } else {
      const args = [this.entry, '--twin', spec.slug, '--data', spec.dataFile, '--port', '0', '--host', '127.0.0.1'];
      args.push('--clock', spec.clockStart.toISOString(), ...environmentSettingArgs(spec), '--public-url', spec.publicUrl);
      if (spec.seedFile) args.push('--seed', spec.seedFile);
      child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: this.childEnv(spec.adminSecret, spec.apiKey, spec.env) });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => (stderr.tail = (stderr.tail + chunk).slice(-2000)));
    }
    let resolveExited!: () => void;
    const workload: Workload = {
      spec,
      child,
      state: 'starting',
      stopping: false,
      exited: new Promise<void>((r) => (resolveExited = r)),
    };
    this.workloads.set(spec.twinId, workload);

    const address = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`The ${spec.slug} twin did not start within ${this.startTimeoutMs} ms. ${stderr.tail.trim()}`.trim()));
      }, this.startTimeoutMs);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        if (workload.state !== 'starting') return;
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) !== -1) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          try {
            const msg = JSON.parse(line) as { event?: string; url?: string };
            if (msg.event === 'listening' && msg.url) {
              clearTimeout(timer);
              resolve(msg.url);
              return;
            }
          } catch {
            // not a protocol line; ignore
          }
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (workload.state === 'starting') {
          reject(new Error(`The ${spec.slug} twin exited during start (${signal ?? `code ${code}`}). ${stderr.tail.trim()}`.trim()));
        }
      });
    }).catch((e: Error) => {
      workload.state = 'exited';
      workload.message = e.message;
      this.workloads.delete(spec.twinId);
      throw e;
    });

    workload.address = address;
    workload.state = 'running';
    child.stdin!.on('error', () => {});
    child.once('exit', (code, signal) => {
      workload.state = 'exited';
      workload.exitCode = code;
      workload.message = signal ? `killed by ${signal}` : `exited with code ${code}`;
      resolveExited();
      if (!workload.stopping) {
        rmSync(this.stateFile(spec.twinId), { force: true });
        this.events.emit('event', { twinId: spec.twinId, kind: 'exited', message: workload.message } satisfies DriverEvent);
      }
    });
    const state: StateFile = {
      twinId: spec.twinId,
      pid: child.pid!,
      dataFile: spec.dataFile,
      address,
      labels: spec.labels,
      startedAt: new Date().toISOString(),
    };
    writeFileSync(this.stateFile(spec.twinId), JSON.stringify(state));
    this.events.emit('event', { twinId: spec.twinId, kind: 'started' } satisfies DriverEvent);
    return { address };
  }

  /** A workload of an earlier run still holding the twin's data file: stop it before starting anew. */
  private async killOrphan(twinId: string): Promise<void> {
    const s = this.readState(twinId);
    if (!s) return;
    if (!this.workloads.has(twinId) && runsWorkload(s.pid, s.dataFile)) {
      await this.killPid(s.pid);
    }
    rmSync(this.stateFile(twinId), { force: true });
  }

  private async killPid(pid: number): Promise<void> {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    const deadline = Date.now() + this.stopGraceMs;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) return;
      await sleep(20);
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  async stop(twinId: string, opts: { removeData?: boolean; dataFile?: string } = {}): Promise<void> {
    const w = this.workloads.get(twinId);
    if (w) {
      w.stopping = true;
      if (w.state !== 'exited') {
        w.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<false>((r) => (timer = setTimeout(() => r(false), this.stopGraceMs)));
        const killed = await Promise.race([w.exited.then(() => true), grace]);
        clearTimeout(timer); // else the grace's timer keeps the process alive after the last twin stopped
        if (!killed) {
          w.child.kill('SIGKILL');
          await w.exited;
        }
      }
      this.workloads.delete(twinId);
      rmSync(this.stateFile(twinId), { force: true });
    } else {
      await this.killOrphan(twinId);
    }
    if (opts.removeData) {
      const file = w?.spec.dataFile ?? opts.dataFile;
      if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    }
  }

  async inspect(twinId: string): Promise<WorkloadStatus> {
    const w = this.workloads.get(twinId);
    if (w) {
      return {
        twinId,
        state: w.state,
        address: w.address,
        exitCode: w.exitCode,
        message: w.message,
        labels: w.spec.labels,
      };
    }
    return { twinId, state: 'missing' };
  }

  async list(labels: Record<string, string>): Promise<WorkloadStatus[]> {
    const matches = (l: Record<string, string>) => Object.entries(labels).every(([k, v]) => l[k] === v);
    const out: WorkloadStatus[] = [];
    const seen = new Set<string>();
    for (const [twinId, w] of this.workloads) {
      seen.add(twinId);
      if (matches(w.spec.labels)) out.push(await this.inspect(twinId));
    }
    // Workloads of an earlier run: known only through their state files.
    for (const s of this.allStates()) {
      if (seen.has(s.twinId) || !matches(s.labels)) continue;
      const alive = runsWorkload(s.pid, s.dataFile);
      out.push({ twinId: s.twinId, state: alive ? 'running' : 'exited', address: s.address, labels: s.labels, message: 'from an earlier run' });
    }
    return out;
  }

  async check(): Promise<string | undefined> {
    if (!existsSync(this.entry)) return `The twin runtime is not built: ${this.entry} is missing.`;
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    for (const list of this.warm.values()) for (const s of list.splice(0)) s.child.kill('SIGKILL');
    await Promise.all([...this.workloads.keys()].map((id) => this.stop(id)));
  }
}
