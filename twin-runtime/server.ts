// The one HTTP server every twin runs: the provider API of the loaded twin, and the internal admin
// API under /_twin/* (protected by a per-container secret, never forwarded by the gateway).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { parseBracketForm } from './form.js';
import { INPUT_LIMITS, InputRefusal, parseJson } from './safe-input.js';
import { RecordStore } from './record-store.js';
import { EnvironmentClock } from './clock.js';
import { IdSource, randomBase62 } from './ids.js';
import { Deliveries, DELIVERY_RESOURCE } from './deliveries.js';
import { handleAdmin } from './admin-api.js';
import { AdvanceJobs } from './advance-job.js';
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
  /**
   * Keep the provider key in the data file and use it again on the next start (standalone twins,
   * decisions §10), instead of minting one per start (decisions §7). `apiKey` chooses it.
   */
  keepKey?: boolean;
  /** The key to accept (implies keeping it); default: the kept one, or a freshly minted one. */
  apiKey?: string;
}

/** Meta key under which a standalone twin keeps its provider key. */
export const KEPT_KEY_META = 'standalone_api_key';

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

/**
 * The body, or an InputRefusal once it passes the limit: the rest is read and dropped (not kept),
 * so the client, still sending, gets the refusal instead of a reset connection.
 */
function readBody(req: IncomingMessage, limit = INPUT_LIMITS.maxBodyBytes): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) chunks.length = 0;
      else chunks.push(c);
    });
    req.on('end', () => {
      if (size > limit) reject(new InputRefusal('body_too_large', 'body', limit));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** Parse the body by content type; a body past an input limit throws InputRefusal. */
function parseBody(raw: Buffer, contentType: string | undefined): Pick<TwinRequest, 'body' | 'bodyKind'> {
  if (raw.length === 0) return { body: {}, bodyKind: 'none' };
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) {
    let v: unknown;
    try {
      v = parseJson(raw.toString('utf8'));
    } catch (e) {
      if (e instanceof InputRefusal) throw e;
      return { body: {}, bodyKind: 'none' };
    }
    return { body: v && typeof v === 'object' ? (v as Record<string, unknown>) : { value: v }, bodyKind: 'json' };
  }
  if (ct.includes('x-www-form-urlencoded') || ct === '') {
    return { body: parseBracketForm(raw.toString('utf8'), 'body'), bodyKind: 'form' };
  }
  return { body: {}, bodyKind: 'none' };
}

/** What a twin without its own refuseInput answers. */
function plainRefusal(refusal: InputRefusal): TwinResponse {
  return { status: refusal.reason === 'body_too_large' ? 413 : 400, body: { error: { message: refusal.message } } };
}

/** A path segment percent-decoded; a malformed escape is kept as sent (the route still decides). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
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
  /** A long advance runs as a job; provider requests get the provider's 503 meanwhile. */
  readonly advances: AdvanceJobs;
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
    this.apiKey = this.providerKey(options);
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
    this.advances = new AdvanceJobs(this);
    this.routes = new Map();
    for (const r of twin.routes) {
      const list = this.routes.get(r.method) ?? [];
      list.push(compile(r));
      this.routes.set(r.method, list);
    }
  }

  /** Whether the key survives restarts (kept in the data file's meta, also across a reset). */
  get keepsKey(): boolean {
    return !!this.options.keepKey || this.options.apiKey !== undefined;
  }

  private providerKey(options: TwinServerOptions): string {
    if (!this.keepsKey) return this.twin.mintKey(randomBase62);
    const key = options.apiKey ?? this.store.getMeta(KEPT_KEY_META) ?? this.twin.mintKey(randomBase62);
    this.store.setMeta(KEPT_KEY_META, key);
    return key;
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
      c.names.forEach((n, i) => (params[n] = decodeSegment(m[i + 1]!)));
      return { route: c.route, params };
    }
    return undefined;
  }

  /** Answer one provider request (also used in-process by tests and seeds). */
  async handle(req: TwinRequest): Promise<TwinResponse> {
    const found = this.match(req.method, req.path);
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
        query: parseBracketForm(queryString, 'query'),
        headers: req.headers,
        rawBody: raw,
        ...parseBody(raw, req.headers['content-type']),
      };
      send(res, this.advances.busyAnswer(twinReq) ?? (await this.handle(twinReq)));
    } catch (e) {
      if (res.headersSent) return;
      if (e instanceof InputRefusal) {
        send(res, this.refuse(e, req, path, queryString));
        return;
      }
      send(res, { status: 500, body: { error: { type: 'api_error', message: (e as Error).message } } });
    }
  }

  /** The answer to a request refused while it was read: the twin's provider shape, `{detail}` on admin paths. */
  private refuse(refusal: InputRefusal, req: IncomingMessage, path: string, queryString: string): TwinResponse {
    if (path.startsWith(ADMIN_PREFIX)) return { status: refusal.reason === 'body_too_large' ? 413 : 400, body: { detail: refusal.message } };
    const unread: TwinRequest = {
      method: req.method ?? 'GET',
      path,
      params: {},
      queryString,
      query: {},
      headers: req.headers,
      rawBody: Buffer.alloc(0),
      body: {},
      bodyKind: 'none',
    };
    return this.twin.refuseInput?.(refusal, unread, this.ctx) ?? plainRefusal(refusal);
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
    await this.advances.stop();
    await this.deliveries.close();
    if (this.server) {
      this.server.closeAllConnections?.();
      await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    }
    this.store.close();
  }
}

export { DELIVERY_RESOURCE };
