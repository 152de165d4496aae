// The twin gateway: the URL callers use for a twin (decisions §8). Locally one loopback port per
// twin; in a cluster (TWINS_DOMAIN) one listener that routes on the host `<twin id>.<domain>`.
// It forwards over undici keep-alive pools, refuses the twin's internal admin paths (/_twin/*),
// and records every request without ever blocking or failing it.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Pool } from 'undici';
import type { Logger } from 'pino';
import { toLogRow } from './recording.js';
import { tunnelUpgrade } from './upgrade.js';
import type { RequestLogWriter } from './request-log-writer.js';
import { INPUT_LIMITS } from '../../twin-runtime/safe-input.js';

export interface GatewayOptions {
  /** Interface the per-twin listeners bind (loopback locally). */
  host: string;
  /** Host-routing domain for a cluster; unset locally. */
  domain?: string;
  /** Port of the shared host-routing listener (cluster mode). */
  sharedPort?: number;
  /** Scheme of the public twin URLs in cluster mode (TLS is terminated in front of us). */
  publicScheme?: string;
  writer: RequestLogWriter;
  log?: Logger;
}

export interface GatewayTwin {
  twinId: string;
  environmentId: string;
  organizationId: string;
  slug: string;
}

interface Route extends GatewayTwin {
  /** The running workload's address; undefined while it (re)starts. */
  target?: string;
  pool?: Pool;
  server?: Server;
  port?: number;
}

/** Request headers that belong to one hop, not to the twin. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'x-twin-admin-secret',
]);
const RESPONSE_HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** `/_twin`, `/_twin/…` (also with extra leading slashes or an encoded underscore): never forwarded. */
export function isAdminPath(path: string): boolean {
  let p = path;
  try {
    p = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  p = '/' + p.replace(/^\/+/, '');
  return p === '/_twin' || p.startsWith('/_twin/');
}

/**
 * Bytes of a request body the gateway holds: one past the twins' limit, so a larger body is
 * drained rather than held in the control plane's memory, and the twin, still seeing too many
 * bytes, refuses it in its provider's shape.
 */
const BODY_KEPT_BYTES = INPUT_LIMITS.maxBodyBytes + 1;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    req.on('data', (c: Buffer) => {
      if (kept >= BODY_KEPT_BYTES) return;
      const part = c.length > BODY_KEPT_BYTES - kept ? c.subarray(0, BODY_KEPT_BYTES - kept) : c;
      chunks.push(part);
      kept += part.length;
    });
    req.on('end', () => resolve(chunks.length === 0 ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function jsonAnswer(res: ServerResponse, status: number, body: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(payload.length) });
  res.end(payload);
  return payload;
}

export class TwinGateway {
  private readonly routes = new Map<string, Route>();
  private shared: Server | undefined;
  private sharedUrlPort: number | undefined;
  /** Requests forwarded (or refused) per twin slug since start, for /metrics. */
  private readonly served = new Map<string, number>();

  constructor(private readonly options: GatewayOptions) {}

  /** Figures for /metrics (read through control-plane/metrics.ts dataPathStats). */
  stats(): { requestsByTwin: Record<string, number> } {
    return { requestsByTwin: Object.fromEntries(this.served) };
  }

  get hostRouting(): boolean {
    return this.options.domain !== undefined;
  }

  /** Cluster mode: open the one host-routed listener. Local mode needs nothing up front. */
  async start(): Promise<void> {
    if (!this.hostRouting) return;
    this.shared = createServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
      const suffix = `.${this.options.domain!.toLowerCase()}`;
      const route = host.endsWith(suffix) ? this.routes.get(host.slice(0, -suffix.length)) : undefined;
      if (!route) {
        req.resume();
        jsonAnswer(res, 404, { detail: 'Not Found' });
        return;
      }
      void this.forward(route, req, res);
    });
    this.shared.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
      const suffix = `.${this.options.domain!.toLowerCase()}`;
      const route = host.endsWith(suffix) ? this.routes.get(host.slice(0, -suffix.length)) : undefined;
      this.upgrade(route, req, socket, head);
    });
    this.sharedUrlPort = await this.listen(this.shared, this.options.sharedPort ?? 0);
  }

  /** Port of the shared listener (cluster mode). */
  get sharedPort(): number | undefined {
    return this.sharedUrlPort;
  }

  private listen(server: Server, port: number): Promise<number> {
    server.keepAliveTimeout = 65_000;
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => {
        server.off('listening', onListening);
        reject(err);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, this.options.host);
    });
  }

  /**
   * Give a twin its public URL. Locally this opens its own port, reusing `preferredPort` when it is
   * free so the URL survives a control-plane restart.
   */
  async open(twin: GatewayTwin, preferredPort?: number | null): Promise<{ url: string; port: number | null }> {
    let route = this.routes.get(twin.twinId);
    if (!route) {
      route = { ...twin };
      this.routes.set(twin.twinId, route);
    }
    if (this.hostRouting) {
      return { url: `${this.options.publicScheme ?? 'https'}://${twin.twinId}.${this.options.domain}`, port: null };
    }
    if (!route.server) {
      const r = route;
      const server = createServer((req, res) => void this.forward(r, req, res));
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(r, req, socket, head));
      let port: number;
      try {
        port = await this.listen(server, preferredPort ?? 0);
      } catch (err) {
        if (!preferredPort) throw err;
        port = await this.listen(server, 0);
      }
      route.server = server;
      route.port = port;
    }
    return { url: `http://${this.options.host}:${route.port}`, port: route.port ?? null };
  }

  /** Point the twin's URL at its running workload (undefined: it is restarting; answer 503). */
  setTarget(twinId: string, address: string | undefined): void {
    const route = this.routes.get(twinId);
    if (!route || route.target === address) return;
    const old = route.pool;
    route.target = address;
    route.pool = address ? new Pool(address, { connections: 64, keepAliveTimeout: 60_000, pipelining: 1 }) : undefined;
    if (old) void old.close().catch(() => {});
  }

  has(twinId: string): boolean {
    return this.routes.has(twinId);
  }

  targetOf(twinId: string): string | undefined {
    return this.routes.get(twinId)?.target;
  }

  /** Close the twin's URL (twin stopped or removed). */
  async close(twinId: string): Promise<void> {
    const route = this.routes.get(twinId);
    if (!route) return;
    this.routes.delete(twinId);
    await this.closeRoute(route);
  }

  private async closeRoute(route: Route): Promise<void> {
    const pool = route.pool;
    route.pool = undefined;
    route.target = undefined;
    if (route.server) {
      const server = route.server;
      route.server = undefined;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    if (pool) await pool.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    const routes = [...this.routes.values()];
    this.routes.clear();
    await Promise.all(routes.map((r) => this.closeRoute(r)));
    if (this.shared) {
      const server = this.shared;
      this.shared = undefined;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  /** A WebSocket upgrade (Slack Socket Mode): tunnelled to the twin's workload and logged once. */
  private upgrade(route: Route | undefined, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!route) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    const started = performance.now();
    const occurredAt = new Date().toISOString();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    tunnelUpgrade(route.target, req, socket, head, isAdminPath, (statusCode) => {
      this.served.set(route.slug, (this.served.get(route.slug) ?? 0) + 1);
      try {
        this.options.writer.add(
          toLogRow({
            organizationId: route.organizationId,
            environmentId: route.environmentId,
            twinId: route.twinId,
            twinSlug: route.slug,
            method: req.method ?? 'GET',
            path: q === -1 ? rawUrl : rawUrl.slice(0, q),
            queryString: q === -1 ? '' : rawUrl.slice(q + 1),
            statusCode,
            durationMs: performance.now() - started,
            occurredAt,
            requestHeaders: req.headers,
            requestBody: undefined,
            responseContentType: undefined,
            responseBody: undefined,
          }),
        );
      } catch (err) {
        this.options.log?.error({ err }, 'request log entry dropped');
      }
    });
  }

  private async forward(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const occurredAt = new Date().toISOString();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const queryString = q === -1 ? '' : rawUrl.slice(q + 1);
    const method = req.method ?? 'GET';
    let requestBody: Buffer | undefined;
    let statusCode = 502;
    let responseBody: Buffer | undefined;
    let responseContentType: string | undefined;
    try {
      requestBody = await readBody(req);
      const pool = route.pool;
      if (isAdminPath(path)) {
        statusCode = 404;
        responseContentType = 'application/json';
        responseBody = jsonAnswer(res, 404, { detail: 'Not Found' });
      } else if (!pool) {
        statusCode = 503;
        responseContentType = 'application/json';
        responseBody = jsonAnswer(res, 503, { detail: 'The twin is starting; retry in a moment.' });
      } else {
        const headers: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(req.headers as IncomingHttpHeaders)) {
          if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
        }
        if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
        const upstream = await pool.request({
          path: rawUrl,
          method: method as 'GET',
          headers,
          body: requestBody.length > 0 ? requestBody : undefined,
        });
        responseBody = Buffer.from(await upstream.body.arrayBuffer());
        statusCode = upstream.statusCode;
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(upstream.headers)) {
          if (v !== undefined && !RESPONSE_HOP_BY_HOP.has(k)) out[k] = v;
        }
        const ct = upstream.headers['content-type'];
        responseContentType = Array.isArray(ct) ? ct[0] : ct;
        out['content-length'] = String(responseBody.length);
        res.writeHead(statusCode, out);
        res.end(responseBody);
      }
    } catch (err) {
      statusCode = 502;
      responseContentType = 'application/json';
      if (!res.headersSent) {
        responseBody = jsonAnswer(res, 502, { detail: 'The twin did not answer; it may be restarting.' });
      } else {
        res.destroy();
      }
      this.options.log?.debug({ err, twinId: route.twinId }, 'gateway forward failed');
    }
    this.served.set(route.slug, (this.served.get(route.slug) ?? 0) + 1);
    try {
      this.options.writer.add(
        toLogRow({
          organizationId: route.organizationId,
          environmentId: route.environmentId,
          twinId: route.twinId,
          twinSlug: route.slug,
          method,
          path,
          queryString,
          statusCode,
          durationMs: performance.now() - started,
          occurredAt,
          requestHeaders: req.headers,
          requestBody,
          responseContentType,
          responseBody,
        }),
      );
    } catch (err) {
      this.options.log?.error({ err }, 'request log entry dropped');
    }
  }
}
