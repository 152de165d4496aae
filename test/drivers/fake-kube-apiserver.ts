// A fake of the few Kubernetes API calls the driver uses (Pods, Services, PVCs, list by label,
// watch), with a pretend kubelet that makes Pods ready and a pretend garbage collector that removes
// what a deleted Pod owned. Kubernetes is an external system, so a fake is allowed here.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

type Obj = {
  metadata: { name: string; namespace?: string; uid?: string; labels?: Record<string, string>; ownerReferences?: { uid: string }[]; resourceVersion?: string };
  status?: any;
  spec?: any;
  [k: string]: any;
};
type Kind = 'pods' | 'services' | 'persistentvolumeclaims';

export class FakeKubeApiServer {
  readonly objects: Record<Kind, Map<string, Obj>> = { pods: new Map(), services: new Map(), persistentvolumeclaims: new Map() };
  readonly calls: string[] = [];
  private readonly watchers = new Set<{ res: ServerResponse; selector: Record<string, string> }>();
  private server!: Server;
  private version = 1;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Pretend the twin container crashed and the kubelet restarted it. */
  crash(podName: string): void {
    const pod = this.objects.pods.get(podName);
    if (!pod) throw new Error(`no pod ${podName}`);
    pod.status.containerStatuses[0].restartCount += 1;
    this.emit('MODIFIED', pod);
  }

  private emit(type: string, obj: Obj): void {
    obj.metadata.resourceVersion = String(++this.version);
    for (const w of this.watchers) {
      if (matches(obj, w.selector)) w.res.write(JSON.stringify({ type, object: obj }) + '\n');
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services|persistentvolumeclaims)(?:\/([^/]+))?$/.exec(url.pathname);
    this.calls.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, obj: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
    };
    if (!m) return send(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
    const [, ns, kind, name] = m as unknown as [string, string, Kind, string | undefined];
    const store = this.objects[kind];
    const selector = parseSelector(url.searchParams.get('labelSelector'));
    if (req.method === 'GET' && !name && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      const w = { res, selector };
      this.watchers.add(w);
      req.on('close', () => this.watchers.delete(w));
      return;
    }
    if (req.method === 'GET' && !name) {
      const items = [...store.values()].filter((o) => matches(o, selector));
      return send(200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.version) }, items });
    }
    if (req.method === 'GET' && name) {
      const o = store.get(name);
      return o ? send(200, o) : send(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: `${kind} "${name}" not found` });
    }
    if (req.method === 'POST' && !name) {
      const obj = body as Obj;
      if (store.has(obj.metadata.name)) return send(409, { kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409 });
      obj.metadata.uid = randomUUID();
      obj.metadata.namespace = ns;
      store.set(obj.metadata.name, obj);
      if (kind === 'pods') {
        obj.status = { phase: 'Pending', conditions: [], containerStatuses: [{ name: 'twin', restartCount: 0, ready: false }] };
        this.emit('ADDED', obj);
        // The pretend kubelet: the Pod runs and passes its readiness probe shortly after.
        setTimeout(() => {
          if (!store.has(obj.metadata.name)) return;
          obj.status = {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True' }],
            containerStatuses: [{ name: 'twin', restartCount: 0, ready: true }],
          };
          this.emit('MODIFIED', obj);
        }, 30);
      }
      return send(201, obj);
    }
    if (req.method === 'DELETE' && name) {
      const o = store.get(name);
      if (!o) return send(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
      store.delete(name);
      if (kind === 'pods') {
        this.emit('DELETED', o);
        // The pretend garbage collector: dependents owned by the deleted Pod go with it.
        for (const s of this.objects.services.values()) {
          if (s.metadata.ownerReferences?.some((r) => r.uid === o.metadata.uid)) this.objects.services.delete(s.metadata.name);
        }
      }
      return send(200, o);
    }
    send(405, { kind: 'Status', status: 'Failure', code: 405 });
  }
}

function parseSelector(s: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (s ?? '').split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    out[k!] = v ?? '';
  }
  return out;
}

function matches(o: Obj, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => o.metadata.labels?.[k] === v);
}
