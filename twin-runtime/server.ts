// The one HTTP server every twin runs: the provider API of the loaded twin (answered by its host,
// host.ts), and the internal admin API under /_twin/* (protected by a per-container secret, never
// forwarded by the gateway).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { listenDual, type DualListener } from './dual-listener.js';
import { requestOrigin } from './request-origin.js';
import { listenLocalSocket, type LocalSocketListener } from './local-socket.js';
import { isUploadPath, maxBodyBytes } from './body-limits.js';
import type { Duplex } from 'node:stream';
import { parseBracketForm } from './form.js';
import { INPUT_LIMITS, InputRefusal, JsonBytesScanner, parseJson } from './safe-input.js';
import type { RecordStore } from './record-store.js';
import type { EnvironmentClock } from './clock.js';
import type { IdSource } from './ids.js';
import { DELIVERY_RESOURCE, type Deliveries } from './deliveries.js';
import { handleAdmin } from './admin-api.js';
import { TwinHost, type TwinHostOptions } from './host.js';
import { isMcpPath } from './mcp.js';
import { loadOnce } from './load-once.js';

/** The MCP server side, on a twin's first /mcp request (twin-runtime/mcp-server.ts). */
const mcpServer = loadOnce(() => import('./mcp-server.js'));
import type { TwinContext, TwinDefinition, TwinRequest, TwinResponse } from './contract.js';

export const ADMIN_PREFIX = '/_twin/';
/** GET of a snapshot file's bytes (streamed, not JSON: answered beside the admin API). */
const SNAPSHOT_FILE_PATH = /^\/_twin\/snapshot\/([^/]+)$/;
export const ADMIN_SECRET_HEADER = 'x-twin-admin-secret';

export interface TwinServerOptions extends TwinHostOptions {
  /** Secret the admin API requires; undefined leaves the admin API open (standalone use). */
  adminSecret?: string;
  /** Also answer https:// on the same port with this key and certificate chain (twin-runtime/tls.ts). */
  tls?: { key: string; cert: string };
  /** Also answer plain HTTP on the local socket named after the address (local-socket.ts): for the gateway. */
  localSocket?: boolean;
}

/**
 * The body, or an InputRefusal once it passes the size limit or, for JSON, a key or nesting limit
 * (checked on the chunks as they arrive): the rest is read and dropped (not kept), so the client,
 * still sending, gets the refusal instead of a reset connection.
 */
function readBody(req: IncomingMessage, limit: number, json: JsonBytesScanner | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > limit || (json && !json.feed(c))) {
        refused = true;
        chunks.length = 0;
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (size > limit) reject(new InputRefusal('body_too_large', 'body', limit));
      else if (refused) reject(json!.refusal()!);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

const isJson = (contentType: string | undefined) => (contentType ?? '').toLowerCase().includes('json');

/** Parse the body by content type; a body past an input limit throws InputRefusal (JSON's limits were checked as it was read). */
function parseBody(raw: Buffer, contentType: string | undefined): Pick<TwinRequest, 'body' | 'bodyKind'> {
  if (raw.length === 0) return { body: {}, bodyKind: 'none' };
  const ct = (contentType ?? '').toLowerCase();
  if (isJson(ct)) {
    let v: unknown;
    try {
      v = parseJson(raw.toString('utf8'), 'body', INPUT_LIMITS, true);
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

/**
 * What every HTML page a twin serves (Stripe's hosted checkout, invoice and portal pages, Slack's
 * install page) carries unless its route says otherwise: nothing loads from anywhere, no other site
 * may frame it (clickjacking a card form), and no browser guesses another type. No page has
 * scripts; forms post to their own page, then redirect (form-action is left open for that).
 */
export const HTML_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
});

function headerOf(headers: Record<string, string | string[]>, name: string): string | string[] | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

export function send(res: ServerResponse, out: TwinResponse): void {
  const headers: Record<string, string | string[]> = { ...(out.headers ?? {}) };
  if (/^\s*text\/html/i.test(String(headerOf(headers, 'content-type') ?? ''))) {
    for (const [name, value] of Object.entries(HTML_PAGE_HEADERS)) if (headerOf(headers, name) === undefined) headers[name] = value;
  }
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
 * An injected fault's effect on the connection: a delayed answer, or a dropped connection. Behind
 * the gateway (the request carries its X-Forwarded-Host) a drop is answered with the fault's
 * marked answer and the gateway closes its client's connection, so the log names the fault; a
 * client talking to the twin directly has its connection closed here.
 */
async function faultEffect(req: IncomingMessage, res: ServerResponse, out: TwinResponse): Promise<void> {
  if (out.delayMs) await new Promise((r) => setTimeout(r, out.delayMs));
  if (out.drop && req.headers['x-forwarded-host'] === undefined) {
    res.socket?.destroy();
    return;
  }
  send(res, out);
}

/**
 * A twin host behind an HTTP listener: provider requests go to `host.handle`, `/_twin/*` to the
 * admin API. The host's parts are re-exposed here for callers that hold the server.
 */
export class TwinServer {
  readonly host: TwinHost;
  private server: DualListener | undefined;
  /** More addresses answering the same requests (`alsoListen`). */
  private readonly others: DualListener[] = [];
  private local: LocalSocketListener | undefined;
  /** Sockets handed to the twin's `upgrade` hook (WebSockets): closed with the server. */
  private readonly upgraded = new Set<Duplex>();

  constructor(
    twin: TwinDefinition,
    readonly options: TwinServerOptions,
  ) {
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

  /** The bytes of a snapshot file this twin wrote (the kubernetes driver's control plane fetches them). */
  private sendSnapshotFile(res: ServerResponse, name: string): void {
    const file = this.host.snapshotFile(name);
    if (!file) {
      send(res, { status: 404, body: { detail: `No snapshot file '${name}' written by this twin.` } });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/vnd.sqlite3', 'content-length': String(statSync(file).size) });
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const queryString = q === -1 ? '' : url.slice(q + 1);
    try {
      const raw = await readBody(req, maxBodyBytes(path), isJson(req.headers['content-type']) ? new JsonBytesScanner() : undefined);
      if (path.startsWith(ADMIN_PREFIX)) {
        if (this.options.adminSecret && req.headers[ADMIN_SECRET_HEADER] !== this.options.adminSecret) {
          send(res, { status: 401, body: { detail: 'Admin secret required.' } });
          return;
        }
        const snapshotName = SNAPSHOT_FILE_PATH.exec(path)?.[1];
        if (snapshotName !== undefined && req.method === 'GET') {
          // A name is plain (SNAPSHOT_FILE_NAME): one that needs decoding names no file.
          this.sendSnapshotFile(res, snapshotName);
          return;
        }
        send(res, await handleAdmin(this.host, req.method ?? 'GET', path, raw));
        return;
      }
      if (this.host.twin.mcp && isMcpPath(path)) {
        await (await mcpServer()).serveTwinMcp(this.host.twin, this.host.ctx, req, res, raw);
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
        ...(isUploadPath(path) ? { body: {}, bodyKind: 'none' as const } : parseBody(raw, req.headers['content-type'])),
      };
      const origin = requestOrigin(req.headers, (req.socket as { encrypted?: boolean }).encrypted === true);
      if (origin) twinReq.origin = origin;
      const out = await this.host.handle(twinReq);
      if (out.delayMs || out.drop) await faultEffect(req, res, out);
      else send(res, out);
    } catch (e) {
      if (res.headersSent) return;
      if (e instanceof InputRefusal) {
        send(res, await this.refuse(e, req, path, queryString));
        return;
      }
      send(res, { status: 500, body: { error: { type: 'api_error', message: (e as Error).message } } });
    }
  }

  /** The answer to a request refused while it was read: the twin's provider shape, `{detail}` on admin paths. */
  private async refuse(refusal: InputRefusal, req: IncomingMessage, path: string, queryString: string): Promise<TwinResponse> {
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
    return this.host.refuse(unread, { kind: 'input_refused', message: refusal.message, refusal });
  }

  async listen(port: number, host = '127.0.0.1'): Promise<string> {
    this.server = await listenDual((req, res) => void this.onRequest(req, res), { port, host, tls: this.options.tls, keepAliveTimeout: 65_000 });
    const url = `http://${host}:${this.server.port()}`;
    for (const server of [this.server.http, this.server.https]) {
      server?.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    }
    if (this.options.localSocket) {
      const http = this.server.http;
      this.local = await listenLocalSocket(url, (socket) => http.emit('connection', socket));
    }
    if (!this.host.ctx.baseUrl) this.host.ctx.baseUrl = url;
    this.host.deliveries.resume();
    return url;
  }

  /**
   * Answer at one more address too (a twin's own loopback host on port 443, twin-runtime/tls.ts
   * `loopbackHostFor`); its links keep naming the first URL. Rejects when the address cannot be bound.
   */
  async alsoListen(port: number, host: string, tls: { key: string; cert: string }): Promise<void> {
    const listener = await listenDual((req, res) => void this.onRequest(req, res), { port, host, tls, keepAliveTimeout: 65_000 });
    for (const server of [listener.http, listener.https]) {
      server?.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    }
    this.others.push(listener);
  }

  /** A WebSocket upgrade: the twin's hook takes it, or it is refused. */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const hook = this.host.twin.upgrade;
    if (!hook || (req.url ?? '').startsWith(ADMIN_PREFIX)) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    this.upgraded.add(socket);
    socket.once('close', () => this.upgraded.delete(socket));
    try {
      hook.call(this.host.twin, req, socket, head, this.host.ctx);
    } catch {
      socket.destroy();
    }
  }

  /** Connections open on the local socket now (none when it does not listen there). */
  get localSocketConnections(): number {
    return this.local?.connections ?? 0;
  }

  async close(): Promise<void> {
    for (const socket of this.upgraded) socket.destroy();
    this.upgraded.clear();
    if (this.local) await this.local.close();
    if (this.server) await this.server.close();
    for (const other of this.others.splice(0)) await other.close();
    await this.host.close();
  }
}

export { DELIVERY_RESOURCE };
