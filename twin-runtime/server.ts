// The one HTTP server every twin runs: the provider API of the loaded twin (answered by its host,
// host.ts), and the internal admin API under /_twin/* (protected by a per-container secret, never
// forwarded by the gateway).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseBracketForm } from './form.js';
import type { RecordStore } from './record-store.js';
import type { EnvironmentClock } from './clock.js';
import type { IdSource } from './ids.js';
import { DELIVERY_RESOURCE, type Deliveries } from './deliveries.js';
import { handleAdmin } from './admin-api.js';
import { TwinHost, type TwinHostOptions } from './host.js';
import type { TwinContext, TwinDefinition, TwinRequest, TwinResponse } from './contract.js';

export const ADMIN_PREFIX = '/_twin/';
export const ADMIN_SECRET_HEADER = 'x-twin-admin-secret';

export interface TwinServerOptions extends TwinHostOptions {
  /** Secret the admin API requires; undefined leaves the admin API open (standalone use). */
  adminSecret?: string;
}

const MAX_BODY = 8 * 1024 * 1024;

/** The body, or `undefined` once it passes MAX_BODY (the rest is drained unread). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
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

/**
 * A twin host behind an HTTP listener: provider requests go to `host.handle`, `/_twin/*` to the
 * admin API. The host's parts are re-exposed here for callers that hold the server.
 */
export class TwinServer {
  readonly host: TwinHost;
  private server: Server | undefined;

  constructor(twin: TwinDefinition, readonly options: TwinServerOptions) {
    this.host = new TwinHost(twin, options);
  }

  get twin(): TwinDefinition {
    return this.host.twin;
  }
  get store(): RecordStore {
    return this.host.store;
  }
  get clock(): EnvironmentClock {
    return this.host.clock;
  }
  get ids(): IdSource {
    return this.host.ids;
  }
  get deliveries(): Deliveries {
    return this.host.deliveries;
  }
  get apiKey(): string {
    return this.host.apiKey;
  }
  get ctx(): TwinContext {
    return this.host.ctx;
  }
  /** The clock's start instant (reset puts the clock back here). */
  get clockStart(): Date {
    return this.host.clockStart;
  }

  /** Answer one provider request in-process (tests, seeds). */
  handle(req: TwinRequest): Promise<TwinResponse> {
    return this.host.handle(req);
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
        if (raw === undefined) {
          send(res, { status: 413, body: { detail: 'Request body too large.' } });
          return;
        }
        send(res, await handleAdmin(this.host, req.method ?? 'GET', path, raw));
        return;
      }
      const twinReq: TwinRequest = {
        method: req.method ?? 'GET',
        path,
        params: {},
        queryString,
        query: parseBracketForm(queryString),
        headers: req.headers,
        rawBody: raw ?? Buffer.alloc(0),
        ...(raw === undefined ? { body: {}, bodyKind: 'none' as const } : parseBody(raw, req.headers['content-type'])),
      };
      if (raw === undefined) {
        send(res, await this.host.refuse(twinReq, { kind: 'body_too_large', message: `The request body is larger than ${MAX_BODY} bytes.` }));
        return;
      }
      send(res, await this.host.handle(twinReq));
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
    if (!this.host.ctx.baseUrl) this.host.ctx.baseUrl = url;
    this.host.deliveries.resume();
    // Fill the route trees now, between requests, rather than on the first request of each method.
    void this.host.routing.router.warm();
    return url;
  }

  async close(): Promise<void> {
    if (this.server) {
      this.server.closeAllConnections?.();
      await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    }
    await this.host.close();
  }
}

export { DELIVERY_RESOURCE };
