// The driver interface: how a twin workload is started, stopped, observed and found again.
// process (child processes, embedded default), docker (dockerode), kubernetes (Pods + Services).

import type { EventEmitter } from 'node:events';

export interface TwinWorkloadSpec {
  twinId: string;
  environmentId: string;
  orgId: string;
  /** Twin slug (`stripe`); the twin-runtime program is the same for every slug. */
  slug: string;
  /** Image for container drivers (ignored by the process driver). */
  image?: string;
  /** Where the twin's SQLite file lives, as the control plane names it (file path or volume key). */
  dataFile: string;
  /** Seed file the twin starts from when its data file is new. */
  seedFile?: string;
  /** Environment clock start for a new data file (reset puts the clock back here). */
  clockStart: Date;
  /** Where a new, unseeded data file's clock stands (the environment's clock now), at wall time `clockWall` (living). */
  clockNow?: Date;
  clockWall?: Date;
  /** How the environment clock moves (`living` with wall time, `frozen` only on advance); the twin's default (frozen) when absent. */
  clockMode?: 'living' | 'frozen';
  /** The environment's fidelity (`strict` refuses what a twin does not simulate, `lenient` answers permissively); strict when absent. */
  fidelity?: 'strict' | 'lenient';
  /** Per-workload secret the admin API (/_twin/*) requires. */
  adminSecret: string;
  /** The provider key the twin accepts, when its supervisor keeps one across restarts (process driver only). */
  apiKey?: string;
  /** The URL callers use (gateway); the twin renders it in provider URLs. */
  publicUrl: string;
  /** Labels on every workload (`twins.environment-id`, `twins.twin-id`, `twins.org-id`). */
  labels: Record<string, string>;
  /** When the environment expires (Kubernetes sets activeDeadlineSeconds from it). */
  expiresAt?: Date | null;
  /** Configuration the twin process receives as environment variables (egress policy). */
  env?: Record<string, string>;
}

export type WorkloadState = 'starting' | 'running' | 'exited' | 'missing';

export interface WorkloadStatus {
  twinId: string;
  state: WorkloadState;
  /** Base URL of the twin (provider API and admin API), when running. */
  address?: string;
  exitCode?: number | null;
  message?: string;
  labels?: Record<string, string>;
}

export interface DriverEvent {
  twinId: string;
  kind: 'started' | 'exited' | 'healthy' | 'unhealthy' | 'removed';
  message?: string;
}

export interface TwinDriver {
  readonly name: 'process' | 'docker' | 'kubernetes';
  /** Start (or adopt an existing) workload; resolves once it accepts connections. */
  start(spec: TwinWorkloadSpec): Promise<{ address: string }>;
  /**
   * Stop and remove the workload; its data stays unless `removeData`. `dataFile` repeats the spec's
   * data location so data can be removed even when no workload (or record of one) is left.
   */
  stop(twinId: string, opts?: { removeData?: boolean; dataFile?: string }): Promise<void>;
  inspect(twinId: string): Promise<WorkloadStatus>;
  /** Workloads carrying all the given labels (orphan sweep at start). */
  list(labels: Record<string, string>): Promise<WorkloadStatus[]>;
  /** Emits `event` with a DriverEvent whenever a workload changes on its own (crash, health). */
  readonly events: EventEmitter;
  /** A readiness sentence for /health/ready, or undefined when the driver is usable. */
  check(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** The twin-runtime arguments (main.ts) carrying the environment's clock mode and fidelity, for every driver. */
export function environmentSettingArgs(spec: Pick<TwinWorkloadSpec, 'clockNow' | 'clockWall' | 'clockMode' | 'fidelity'>): string[] {
  return [
    ...(spec.clockNow ? ['--clock-now', spec.clockNow.toISOString()] : []),
    ...(spec.clockWall ? ['--clock-wall', spec.clockWall.toISOString()] : []),
    ...(spec.clockMode ? ['--clock-mode', spec.clockMode] : []),
    ...(spec.fidelity ? ['--fidelity', spec.fidelity] : []),
  ];
}
