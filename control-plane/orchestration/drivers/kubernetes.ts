// The Kubernetes driver (TWINS_DRIVER=kubernetes): one Pod per twin (readiness probe on
// /_twin/health, requests/limits, labels, activeDeadlineSeconds from the environment's expiry) and a
// Service owned by the Pod, so deleting the Pod cleans the Service up through its owner reference.
// A watch on the twins' Pods feeds the reconciler.

import { EventEmitter } from 'node:events';
import { CoreV1Api, KubeConfig, Watch, type V1Pod, type V1Service, type V1Volume } from '@kubernetes/client-node';
import { startFilePath } from '../start-files.js';
import { environmentSettingArgs, type DriverEvent, type TwinDriver, type TwinWorkloadSpec, type WorkloadStatus } from './driver.js';

export interface KubernetesDriverOptions {
  image: string;
  namespace: string;
  /** `emptyDir` (data lives as long as the Pod) or `pvc` (a claim per twin, kept across Pods). */
  dataVolume: 'emptyDir' | 'pvc';
  storageClassName?: string;
  /** Cluster DNS suffix of Services (`svc.cluster.local`). */
  serviceDomain?: string;
  /** A kube config to use; default: in-cluster, then KUBECONFIG / ~/.kube/config. */
  kubeConfig?: KubeConfig;
  startTimeoutMs?: number;
  /**
   * Where a seeded or snapshotted twin fetches its starting file (the control plane's internal
   * route, reachable from the Pods) and the short-lived per-twin token that opens it. Without it
   * such twins are refused: their file lives on the control plane, not in the Pod.
   */
  startFiles?: { baseUrl: string; mint(twinId: string): string };
}

const PORT = 8080;
const DATA_FILE = '/data/twin.sqlite';
const MANAGED = 'twins.managed';
const TWIN_LABEL = 'twins.twin-id';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: number; statusCode?: number }).code ?? (e as { statusCode?: number }).statusCode;
  return code === 404;
}

export function podName(twinId: string): string {
  return `twin-${twinId}`.toLowerCase();
}

function ready(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function restarts(pod: V1Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

export class KubernetesDriver implements TwinDriver {
  readonly name = 'kubernetes' as const;
  readonly events = new EventEmitter();
  private readonly kc: KubeConfig;
  private readonly core: CoreV1Api;
  private watchAbort: AbortController | undefined;
  private readonly seen = new Map<string, { ready: boolean; restarts: number }>();
  private readonly stopping = new Set<string>();
  private closed = false;

  constructor(private readonly options: KubernetesDriverOptions) {
    this.kc = options.kubeConfig ?? KubernetesDriver.defaultConfig();
    this.core = this.kc.makeApiClient(CoreV1Api);
  }

  private static defaultConfig(): KubeConfig {
    const kc = new KubeConfig();
    if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
    else kc.loadFromDefault();
    return kc;
  }

  private get ns(): string {
    return this.options.namespace;
  }

  /** Address of a twin inside the cluster: its Service's DNS name. */
  addressOf(twinId: string): string {
    return `http://${podName(twinId)}.${this.ns}.${this.options.serviceDomain ?? 'svc.cluster.local'}:${PORT}`;
  }

  private async watch(): Promise<void> {
    if (this.watchAbort || this.closed) return;
    const w = new Watch(this.kc);
    this.watchAbort = await w.watch(
      `/api/v1/namespaces/${this.ns}/pods`,
      { labelSelector: `${MANAGED}=true` },
      (phase, pod: V1Pod) => this.onPodEvent(phase, pod),
      () => {
        // The server closed the watch (normal every few minutes): watch again unless closing.
        this.watchAbort = undefined;
        if (!this.closed) setTimeout(() => void this.watch().catch(() => {}), 500).unref();
      },
    );
  }

  private onPodEvent(phase: string, pod: V1Pod): void {
    const twinId = pod.metadata?.labels?.[TWIN_LABEL];
    if (!twinId) return;
    const before = this.seen.get(twinId) ?? { ready: false, restarts: 0 };
    const now = { ready: ready(pod), restarts: restarts(pod) };
    this.seen.set(twinId, now);
    let event: DriverEvent | undefined;
    if (phase === 'DELETED') {
      this.seen.delete(twinId);
      if (!this.stopping.has(twinId)) event = { twinId, kind: 'removed', message: 'pod deleted' };
    } else if (now.restarts > before.restarts || pod.status?.phase === 'Failed') {
      event = { twinId, kind: 'exited', message: pod.status?.phase === 'Failed' ? (pod.status?.reason ?? 'pod failed') : 'container restarted' };
    } else if (now.ready && !before.ready) event = { twinId, kind: 'healthy' };
    else if (!now.ready && before.ready) event = { twinId, kind: 'unhealthy' };
    if (event) this.events.emit('event', event);
  }

  /** The Pod manifest for a twin (exported for tests and for reading). */
  podManifest(spec: TwinWorkloadSpec): V1Pod {
    const name = podName(spec.twinId);
    const volume: V1Volume =
      this.options.dataVolume === 'pvc' ? { name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } } : { name: 'data', emptyDir: {} };
    const args = ['--twin', spec.slug, '--data', DATA_FILE, '--port', String(PORT), '--host', '0.0.0.0'];
    args.push('--clock', spec.clockStart.toISOString(), ...environmentSettingArgs(spec), '--public-url', spec.publicUrl);
    const labels = { ...spec.labels, [MANAGED]: 'true', [TWIN_LABEL]: spec.twinId, 'twins.slug': spec.slug };
    const deadline = spec.expiresAt ? Math.max(1, Math.ceil((spec.expiresAt.getTime() - Date.now()) / 1000)) : undefined;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: this.ns, labels },
      spec: {
        restartPolicy: 'Always',
        activeDeadlineSeconds: deadline,
        securityContext: { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001 },
        containers: [
          {
            name: 'twin',
            image: spec.image ?? this.options.image,
            args,
            env: [
              ...Object.entries(spec.env ?? {}).map(([name, value]) => ({ name, value })),
              { name: 'TWIN_ADMIN_SECRET', value: spec.adminSecret },
              { name: 'TWIN_PORT', value: String(PORT) },
              ...this.startFileEnv(spec),
            ],
            ports: [{ name: 'http', containerPort: PORT }],
            readinessProbe: {
              httpGet: { path: '/_twin/health', port: PORT, httpHeaders: [{ name: 'x-twin-admin-secret', value: spec.adminSecret }] },
              periodSeconds: 2,
              failureThreshold: 3,
            },
            livenessProbe: {
              httpGet: { path: '/_twin/health', port: PORT, httpHeaders: [{ name: 'x-twin-admin-secret', value: spec.adminSecret }] },
              periodSeconds: 10,
              failureThreshold: 3,
            },
            resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
        ],
        volumes: [volume],
      },
    };
  }

  /** A seeded or snapshotted twin's way to its starting file: the internal route and a token for it alone. */
  private startFileEnv(spec: TwinWorkloadSpec): { name: string; value: string }[] {
    if (!spec.seedFile) return [];
    const startFiles = this.options.startFiles;
    if (!startFiles) {
      throw new Error(
        "Seeded and snapshotted twins need the control plane's internal URL under the kubernetes driver (TWINS_INTERNAL_URL): their starting file is fetched from there.",
      );
    }
    return [
      { name: 'TWIN_START_FILE_URL', value: `${startFiles.baseUrl}${startFilePath(spec.twinId)}` },
      { name: 'TWIN_START_FILE_TOKEN', value: startFiles.mint(spec.twinId) },
    ];
  }

  serviceManifest(pod: V1Pod): V1Service {
    const name = pod.metadata!.name!;
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name,
        namespace: this.ns,
        labels: pod.metadata!.labels,
        // Owned by the Pod: the cluster's garbage collector removes the Service with it.
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata!.uid!, blockOwnerDeletion: true }],
      },
      spec: { selector: { [TWIN_LABEL]: pod.metadata!.labels![TWIN_LABEL]! }, ports: [{ name: 'http', port: PORT, targetPort: PORT }] },
    };
  }

  async start(spec: TwinWorkloadSpec): Promise<{ address: string }> {
    if (this.closed) throw new Error('The kubernetes driver is closed.');
    // Refused before anything is created when the twin could not reach its starting file.
    this.startFileEnv(spec);
    await this.watch();
    const name = podName(spec.twinId);
    let pod = await this.readPod(name);
    if (pod && (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded')) {
      await this.deletePod(name);
      pod = undefined;
    }
    if (!pod) {
      if (this.options.dataVolume === 'pvc') await this.ensureClaim(`${name}-data`, spec.labels);
      pod = await this.core.createNamespacedPod({ namespace: this.ns, body: this.podManifest(spec) });
      await this.core.createNamespacedService({ namespace: this.ns, body: this.serviceManifest(pod) }).catch((e) => {
        if ((e as { code?: number }).code !== 409) throw e;
      });
    }
    const timeout = this.options.startTimeoutMs ?? 60_000;
    const until = Date.now() + timeout;
    while (Date.now() < until) {
      const current = await this.readPod(name);
      if (!current) throw new Error(`The pod ${name} disappeared during start.`);
      if (ready(current)) return { address: this.addressOf(spec.twinId) };
      if (current.status?.phase === 'Failed') throw new Error(`The pod ${name} failed: ${current.status?.message ?? current.status?.reason ?? 'unknown'}.`);
      await sleep(200);
    }
    throw new Error(`The pod ${name} was not ready within ${timeout} ms.`);
  }

  private async ensureClaim(name: string, labels: Record<string, string>): Promise<void> {
    try {
      await this.core.createNamespacedPersistentVolumeClaim({
        namespace: this.ns,
        body: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name, namespace: this.ns, labels: { ...labels, [MANAGED]: 'true' } },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: this.options.storageClassName,
            resources: { requests: { storage: '1Gi' } },
          },
        },
      });
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }

  private async readPod(name: string): Promise<V1Pod | undefined> {
    try {
      return await this.core.readNamespacedPod({ name, namespace: this.ns });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private async deletePod(name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({ name, namespace: this.ns, propagationPolicy: 'Background', gracePeriodSeconds: 2 });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  async stop(twinId: string, opts: { removeData?: boolean } = {}): Promise<void> {
    this.stopping.add(twinId);
    try {
      await this.deletePod(podName(twinId));
      if (opts.removeData && this.options.dataVolume === 'pvc') {
        try {
          await this.core.deleteNamespacedPersistentVolumeClaim({ name: `${podName(twinId)}-data`, namespace: this.ns });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
    } finally {
      setTimeout(() => this.stopping.delete(twinId), 5_000).unref();
    }
  }

  private status(pod: V1Pod): WorkloadStatus {
    const twinId = pod.metadata!.labels![TWIN_LABEL]!;
    const phase = pod.status?.phase;
    const state = phase === 'Failed' || phase === 'Succeeded' ? 'exited' : ready(pod) ? 'running' : 'starting';
    return {
      twinId,
      state,
      address: state === 'running' ? this.addressOf(twinId) : undefined,
      message: pod.status?.message ?? phase,
      labels: pod.metadata?.labels,
    };
  }

  async inspect(twinId: string): Promise<WorkloadStatus> {
    const pod = await this.readPod(podName(twinId));
    return pod ? this.status(pod) : { twinId, state: 'missing' };
  }

  async list(labels: Record<string, string>): Promise<WorkloadStatus[]> {
    const selector = [`${MANAGED}=true`, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)].join(',');
    const pods = await this.core.listNamespacedPod({ namespace: this.ns, labelSelector: selector });
    return pods.items.filter((p) => p.metadata?.labels?.[TWIN_LABEL]).map((p) => this.status(p));
  }

  async check(): Promise<string | undefined> {
    try {
      await this.core.listNamespacedPod({ namespace: this.ns, limit: 1 });
      return undefined;
    } catch (e) {
      return `The Kubernetes API is not reachable: ${(e as Error).message}`;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchAbort?.abort();
    this.watchAbort = undefined;
  }
}
