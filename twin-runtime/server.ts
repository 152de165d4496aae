// The one HTTP server every twin runs: the provider API of the loaded twin, and the internal admin
// API under /_twin/* (protected by a per-container secret, never forwarded by the gateway).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { parseBracketForm } from './form.js';
import { RecordStore } from './record-store.js';
import { EnvironmentClock } from './clock.js';
import { IdSource, randomBase62 } from './ids.js';
import { Deliveries, DELIVERY_RESOURCE } from './deliveries.js';
import { handleAdmin } from './admin-api.js';
import type { TwinContext, TwinDefinition, TwinRequest, TwinResponse, TwinRoute } from './contract.js';

export const ADMIN_PREFIX = '/_twin/';
export const ADMIN_SECRET_HEADER = 'x-twin-admin-secret';

export interface TwinServerOptions {
  dataFile: string;
  /** Seed file copied in when the data file is new, and restored by reset. */
  seedFile?: string;
  /** Clock start for a new data file (default: now). */
  clockStart?: Date;
  /** Secret the admin API requires; undefined leaves the admin API open (standalone use). */
  adminSecret?: string;
  /** Base URL callers see (gateway URL); defaults to the listening address. */
  publicUrl?: string;
}

interface CompiledRoute {
  route: TwinRoute;
  regex: RegExp;
  names: string[];
}

function compile(route: TwinRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((seg) =>
      seg.replace(/\{([^}]+)\}|[.*+?^${}()|[\]\\]/g, (m, name?: string) => {
        if (name) {
          names.push(name);
          return '([^/]+)';
        }
        return '\\' + m;
      }),
    )
    .join('/');
  return { route, regex: new RegExp(`^${source}$`), names };
}

const MAX_BODY = 8 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseBody(raw: Buffer, contentType: string | undefined): Pick<TwinRequest, 'body' | 'bodyKind'> {
  if (raw.length === 0) return { body: {}, bodyKind: 'none' };
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) {
    try {
      const v = JSON.parse(raw.toString('utf8'));
      return { body: v && typeof v === 'object' ? v : { value: v }, bodyKind: 'json' };
    } catch {
      return { body: {}, bodyKind: 'none' };
    }
  }
  if (ct.includes('x-www-form-urlencoded') || ct === '') {
    return { body: parseBracketForm(raw.toString('utf8')), bodyKind: 'form' };
  }
  return { body: {}, bodyKind: 'none' };
}

export function send(res: ServerResponse, out: TwinResponse): void {
  const headers: Record<string, string | string[]> = { ...(out.headers ?? {}) };
  let payload: string | Buffer | undefined;
  if (out.body === undefined || out.status === 204 || out.status === 304) payload = undefined;
  else if (typeof out.body === 'string' || Buffer.isBuffer(out.body)) payload = out.body;
  else {
    payload = JSON.stringify(out.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json; charset=utf-8';
    }
  }
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(out.status, headers);
  res.end(payload);
}

export class TwinServer {
  readonly store: RecordStore;
  readonly clock: EnvironmentClock;
  readonly ids: IdSource;
  readonly deliveries: Deliveries;
  readonly apiKey: string;
  readonly ctx: TwinContext;
  private readonly routes: Map<string, CompiledRoute[]>;
  private server: Server | undefined;
  private readonly startClock: Date;

  constructor(readonly twin: TwinDefinition, readonly options: TwinServerOptions) {
    const fresh = !existsSync(options.dataFile);
    this.store = new RecordStore(options.dataFile);
    if (fresh && options.seedFile) this.store.replaceWith(options.seedFile);
    if (this.store.getMeta('storage_version') === undefined) {
      this.store.setMeta('storage_version', String(twin.storageVersion));
    }
    if (this.store.getMeta('clock_start') === undefined) {
      this.store.setMeta('clock_start', String((options.clockStart ?? new Date()).getTime()));
    }
    this.startClock = new Date(Number(this.store.getMeta('clock_start')));
    this.clock = new EnvironmentClock(this.store, this.startClock);
    this.ids = new IdSource(this.store, `${twin.slug}:default-seed`);
    this.apiKey = twin.mintKey(randomBase62);
    this.deliveries = new Deliveries(
      this.store,
      () => this.ids.next('dlv_', 24),
      twin.signDelivery?.bind(twin),
    );
    this.ctx = {
      store: this.store,
      clock: this.clock,
      ids: this.ids,
      apiKey: this.apiKey,
      baseUrl: options.publicUrl ?? '',
      deliveries: this.deliveries,
    };
    // The starting state exists from the first instant, so the records endpoints show it at once.
    twin.initialize?.(this.ctx);
    this.routes = new Map();
    for (const r of twin.routes) {
      const list = this.routes.get(r.method) ?? [];
      list.push(compile(r));
      this.routes.set(r.method, list);
    }
  }

  /** The clock's start instant (reset puts the clock back here). */
  get clockStart(): Date {
    return this.startClock;
  }

  match(method: string, path: string): { route: TwinRoute; params: Record<string, string> } | undefined {
    for (const c of this.routes.get(method) ?? []) {
      const m = c.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
      return { route: c.route, params };
    }
    return undefined;
  }

  /** Answer one provider request (also used in-process by tests and seeds). */
  async handle(req: TwinRequest): Promise<TwinResponse> {
    const found = this.match(req.method, req.path);
    // The spec-driven surface answers what no hand-written route claims, and what one claims only
    // through a less specific template (`/commits/{ref}/status` is not the commit `<sha>/status`).
    const generic = this.twin.generic?.match(req.method, req.path, found?.route.path);
    if (generic) {
      req.params = generic.params;
      const refused = this.twin.authenticate(req, this.ctx);
      if (refused) return refused;
      return generic.handler(req, this.ctx);
    }
    if (!found) return this.twin.notFound(req, this.ctx);
    req.params = found.params;
    if (!found.route.public) {
      const refused = this.twin.authenticate(req, this.ctx);
      if (refused) return refused;
    }
    return found.route.handler(req, this.ctx);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const queryString = q === -1 ? '' : url.slice(q + 1);
    try {
      const raw = await readBody(req);
      if (path.startsWith(ADMIN_PREFIX)) {
        if (this.options.adminSecret && req.headers[ADMIN_SECRET_HEADER] !== this.options.adminSecret) {
          send(res, { status: 401, body: { detail: 'Admin secret required.' } });
          return;
        }
        send(res, await handleAdmin(this, req.method ?? 'GET', path, raw));
        return;
      }
      const twinReq: TwinRequest = {
        method: req.method ?? 'GET',
        path,
        params: {},
        queryString,
        query: parseBracketForm(queryString),
        headers: req.headers,
        rawBody: raw,
        ...parseBody(raw, req.headers['content-type']),
      };
      send(res, await this.handle(twinReq));
    } catch (e) {
      if (!res.headersSent) {
        send(res, { status: 500, body: { error: { type: 'api_error', message: (e as Error).message } } });
      }
    }
  }

  async listen(port: number, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const addr = this.server.address() as AddressInfo;
    const url = `http://${host}:${addr.port}`;
    if (!this.ctx.baseUrl) this.ctx.baseUrl = url;
    this.deliveries.resume();
    return url;
  }

  async close(): Promise<void> {
    await this.deliveries.close();
    if (this.server) {
      this.server.closeAllConnections?.();
      await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    }
    this.store.close();
  }
}

export { DELIVERY_RESOURCE };
