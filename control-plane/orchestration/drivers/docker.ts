// The Docker driver (TWINS_DRIVER=docker): each twin a container of the twin-runtime image, host
// networking on a loopback port, its data directory bind-mounted at /data, labels on every container,
// crashes reported from the engine's event stream, orphans found by label. The containers are the
// control plane's workloads as child processes are the process driver's: closing the driver (the
// control plane stopping, Ctrl-C) stops the ones it runs; the next start brings them back from
// their data files.

import Docker from 'dockerode';
import { EventEmitter } from 'node:events';
import { chownSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname } from 'node:path';
import { environmentSettingArgs, type DriverEvent, type TwinDriver, type TwinWorkloadSpec, type WorkloadStatus } from './driver.js';

export interface DockerDriverOptions {
  image: string;
  /** Engine socket; default from DOCKER_HOST or /var/run/docker.sock. */
  socketPath?: string;
  startTimeoutMs?: number;
  stopGraceSeconds?: number;
}

/** The uid the image runs as: a control plane running as root hands the bind-mounted data to it. */
const TWIN_UID = 10001;
export const MANAGED_LABEL = 'twins.managed';
const TWIN_LABEL = 'twins.twin-id';
const PORT_LABEL = 'twins.port';

type ContainerInfo = Docker.ContainerInfo;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A free loopback port (host networking: the container binds it itself). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The text of a container's log as the engine sends it without a TTY: frames of an 8-byte header
 * (stream 1 stdout or 2 stderr, three zero bytes, the payload's length, big-endian) and the payload.
 * Anything that does not parse as frames is returned as it is (a TTY container's raw log).
 */
export function demultiplexLogs(raw: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i < raw.length) {
    const stream = raw[i]!;
    if (raw.length - i < 8 || stream > 2 || raw[i + 1] !== 0 || raw[i + 2] !== 0 || raw[i + 3] !== 0) return raw.toString('utf8');
    const size = raw.readUInt32BE(i + 4);
    if (i + 8 + size > raw.length) return raw.toString('utf8');
    parts.push(raw.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Make a twin's files usable by its container. As root, hand them (the directory, the data file and
 * its journal files, the seed) to the image's user: a twin that ran under the process driver left
 * them owned by root with mode 0600. Otherwise the container runs as the caller, who owns them.
 */
function prepareFiles(spec: TwinWorkloadSpec): { user?: string } {
  const dataDir = dirname(spec.dataFile);
  mkdirSync(dataDir, { recursive: true });
  if (process.getuid?.() !== 0) return { user: `${process.getuid?.() ?? TWIN_UID}:${process.getgid?.() ?? TWIN_UID}` };
  for (const path of [dataDir, spec.dataFile, `${spec.dataFile}-wal`, `${spec.dataFile}-shm`, spec.seedFile])
    if (path && existsSync(path)) chownSync(path, TWIN_UID, TWIN_UID);
  return {};
}

function labelFilters(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`);
}

export class DockerDriver implements TwinDriver {
  readonly name = 'docker' as const;
  readonly events = new EventEmitter();
  private readonly docker: Docker;
  private readonly stopping = new Set<string>();
  /** Twins this driver started or adopted, stopped when it closes. */
  private readonly running = new Set<string>();
  private eventStream: NodeJS.ReadableStream | undefined;
  private closed = false;

  constructor(private readonly options: DockerDriverOptions) {
    this.docker = new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
  }

  /** Follow the engine's container events for our workloads (started lazily, once). */
  private async watch(): Promise<void> {
    if (this.eventStream || this.closed) return;
    const stream = (await this.docker.getEvents({
      filters: JSON.stringify({ type: ['container'], label: [`${MANAGED_LABEL}=true`] }),
    })) as NodeJS.ReadableStream;
    this.eventStream = stream;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) this.onEngineEvent(line);
      }
    });
    stream.on('error', () => {
      this.eventStream = undefined;
    });
  }

  private onEngineEvent(line: string): void {
    let e: { status?: string; Action?: string; Actor?: { Attributes?: Record<string, string> } };
    try {
      e = JSON.parse(line);
    } catch {
      return;
    }
    const twinId = e.Actor?.Attributes?.[TWIN_LABEL];
    const action = e.Action ?? e.status ?? '';
    if (!twinId) return;
    let event: DriverEvent | undefined;
    if (action === 'die' && !this.stopping.has(twinId)) {
      event = { twinId, kind: 'exited', message: `container exited with code ${e.Actor?.Attributes?.exitCode ?? '?'}` };
    } else if (action === 'start') event = { twinId, kind: 'started' };
    else if (action.startsWith('health_status: healthy')) event = { twinId, kind: 'healthy' };
    else if (action.startsWith('health_status: unhealthy')) event = { twinId, kind: 'unhealthy' };
    else if (action === 'destroy' && !this.stopping.has(twinId)) event = { twinId, kind: 'removed' };
    if (event) this.events.emit('event', event);
  }

  private async find(twinId: string): Promise<ContainerInfo | undefined> {
    const list = await this.docker.listContainers({ all: true, filters: { label: [`${TWIN_LABEL}=${twinId}`] } });
    return list[0];
  }

  private static addressOf(info: { Labels?: Record<string, string> }): string | undefined {
    const port = info.Labels?.[PORT_LABEL];
    return port ? `http://127.0.0.1:${port}` : undefined;
  }

  async start(spec: TwinWorkloadSpec): Promise<{ address: string }> {
    if (this.closed) throw new Error('The docker driver is closed.');
    await this.watch();
    const existing = await this.find(spec.twinId);
    if (existing?.State === 'running') {
      const address = DockerDriver.addressOf(existing);
      if (address && (await this.healthy(address, spec.adminSecret))) {
        this.running.add(spec.twinId);
        return { address };
      }
    }
    if (existing) await this.remove(existing.Id);

    const dataDir = dirname(spec.dataFile);
    const { user } = prepareFiles(spec);
    const port = await freePort();
    const binds = [`${dataDir}:/data`];
    const cmd = ['--twin', spec.slug, '--data', `/data/${basename(spec.dataFile)}`, '--port', String(port)];
    cmd.push('--host', '127.0.0.1', '--clock', spec.clockStart.toISOString(), ...environmentSettingArgs(spec), '--public-url', spec.publicUrl);
    if (spec.seedFile) {
      binds.push(`${spec.seedFile}:/seed/seed.sqlite:ro`);
      cmd.push('--seed', '/seed/seed.sqlite');
    }
    const container = await this.docker.createContainer({
      name: `twins-${spec.twinId}`,
      Image: spec.image ?? this.options.image,
      Cmd: cmd,
      Env: [
        ...Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
        `TWIN_ADMIN_SECRET=${spec.adminSecret}`,
        `TWIN_PORT=${port}`,
        'TWIN_HOST=127.0.0.1',
      ],
      ...(user ? { User: user } : {}),
      Labels: { ...spec.labels, [MANAGED_LABEL]: 'true', [TWIN_LABEL]: spec.twinId, [PORT_LABEL]: String(port), 'twins.slug': spec.slug },
      HostConfig: { NetworkMode: 'host', Binds: binds, RestartPolicy: { Name: 'no' } },
    });
    await container.start();
    this.running.add(spec.twinId);
    const address = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 20_000);
    while (Date.now() < deadline) {
      if (await this.healthy(address, spec.adminSecret)) return { address };
      const state = (await container.inspect()).State;
      if (!state.Running) {
        const logs = demultiplexLogs(await container.logs({ stdout: true, stderr: true, tail: 20 }));
        throw new Error(`The ${spec.slug} twin container exited during start (code ${state.ExitCode}). ${logs.trim()}`.trim());
      }
      await sleep(25);
    }
    throw new Error(`The ${spec.slug} twin container did not become healthy within ${this.options.startTimeoutMs ?? 20_000} ms.`);
  }

  private async healthy(address: string, secret: string): Promise<boolean> {
    try {
      const res = await fetch(`${address}/_twin/health`, { headers: { 'x-twin-admin-secret': secret }, signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  private async remove(id: string): Promise<void> {
    const c = this.docker.getContainer(id);
    try {
      await c.stop({ t: this.options.stopGraceSeconds ?? 3 });
    } catch {
      // already stopped
    }
    try {
      await c.remove({ force: true, v: true });
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 404) throw e;
    }
  }

  async stop(twinId: string, opts: { removeData?: boolean; dataFile?: string } = {}): Promise<void> {
    this.stopping.add(twinId);
    this.running.delete(twinId);
    try {
      const info = await this.find(twinId);
      if (info) await this.remove(info.Id);
    } finally {
      // Keep the mark briefly so the engine's late `die` for this stop is not taken for a crash.
      setTimeout(() => this.stopping.delete(twinId), 5_000).unref();
    }
    if (opts.removeData && opts.dataFile) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(opts.dataFile + suffix, { force: true });
    }
  }

  async inspect(twinId: string): Promise<WorkloadStatus> {
    const info = await this.find(twinId);
    if (!info) return { twinId, state: 'missing' };
    return this.status(info);
  }

  private async status(info: ContainerInfo): Promise<WorkloadStatus> {
    const twinId = info.Labels[TWIN_LABEL]!;
    const details = await this.docker.getContainer(info.Id).inspect();
    const s = details.State;
    const health = s.Health?.Status;
    // A running container counts as running unless the engine's health check already failed it
    // (`start` itself waited for /_twin/health, before the engine's first check reports).
    const state = s.Running ? (health === 'unhealthy' ? 'starting' : 'running') : s.Status === 'created' ? 'starting' : 'exited';
    return {
      twinId,
      state,
      address: DockerDriver.addressOf(info),
      exitCode: s.Running ? null : s.ExitCode,
      message: s.Error || (health ? `health ${health}` : s.Status),
      labels: info.Labels,
    };
  }

  async list(labels: Record<string, string>): Promise<WorkloadStatus[]> {
    const list = await this.docker.listContainers({
      all: true,
      filters: { label: [`${MANAGED_LABEL}=true`, ...labelFilters(labels)] },
    });
    return Promise.all(list.map((info) => this.status(info)));
  }

  async check(): Promise<string | undefined> {
    try {
      await this.docker.ping();
    } catch (e) {
      return `The Docker engine is not reachable: ${(e as Error).message}`;
    }
    try {
      await this.docker.getImage(this.options.image).inspect();
    } catch {
      return `The twin image ${this.options.image} is missing; build it with \`make image\`.`;
    }
    return undefined;
  }

  /** Stop every container this driver runs (their data stays), then stop following the engine. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running].map((id) => this.stop(id).catch(() => undefined)));
    const s = this.eventStream as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
    s?.destroy?.();
    this.eventStream = undefined;
  }
}
