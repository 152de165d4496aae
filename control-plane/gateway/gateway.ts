// The twin gateway: the URL callers use for a twin (docs/decisions.md §8). Locally one loopback port per
// twin; in a cluster (TWINS_DOMAIN) one listener that routes on the host `<twin id>.<domain>`.
// It forwards over keep-alive connections (twin-client.ts; to a child-process twin over its local
// socket, twin-runtime/local-socket.ts), refuses the twin's internal admin paths (/_twin/*),
// and answers a request only once its log entry is durable (log-journal.ts).
//
// It runs on its own thread (worker.ts, driven by host.ts), so no API request can block it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerClientError } from '../http/client-error.js';
import { answeredRow, compileRedaction, toLogRow, UNANSWERED, type CapturedRow, type CompiledRedaction } from './recording.js';
import type { RedactionRules } from '../../twin-runtime/contract.js';
import { maxBodyBytes } from '../../twin-runtime/body-limits.js';
import type { Duplex } from 'node:stream';
import { tunnelUpgrade } from './upgrade.js';
import { listenDual, type DualListener, type RequestHandler } from '../../twin-runtime/dual-listener.js';
import { TwinClient, type TwinAnswer } from './twin-client.js';
import { loopbackHostFor } from '../../twin-runtime/own-host.js';
import { FIDELITY_HEADER, isFidelityLevel, type FidelityLevel } from '../../twin-runtime/fidelity.js';
import { FAULT_HEADER } from '../../twin-runtime/faults.js';

/** Where the gateway hands each log row; `done` runs once the row is durable. */
export interface LogSink {
  write(row: CapturedRow, done: (committed: boolean) => void): void;
  /** False while the log cannot be written: requests are refused before they reach the twin. */
  readonly writable: boolean;
}

export interface GatewayOptions {
  /** Interface the per-twin listeners bind (loopback locally). */
  host: string;
  /** Host-routing domain for a cluster; unset locally. */
  domain?: string;
  /** Port of the shared host-routing listener (cluster mode). */
  sharedPort?: number;
  /** Scheme of the public twin URLs in cluster mode (TLS is terminated in front of us). */
  publicScheme?: string;
  writer: LogSink;
  /** Each request as it arrives (its twin's counter slot, requests now in flight), for host.ts's counters. */
  count?: (slot: number | undefined, inFlight: number) => void;
  /** Requests in flight once one has been answered (or its client is gone), for the same counters. */
  settled?: (inFlight: number) => void;
  onError?: (message: string, err: unknown) => void;
  /** Key and certificate chain: every twin URL then answers https:// on its port too (twin-runtime/tls.ts). */
  tls?: { key: string; cert: string };
  /** The twins are child processes on this host: reach them on their local sockets (twin-runtime/local-socket.ts). */
  twinLocalSockets?: boolean;
  /**
   * The certificate for a twin's own loopback address (twin-runtime/tls.ts `hostTls`); without it
   * no twin gets one. Locally only: in a cluster every twin has a host name already.
   */
  hostTls?: (address: string) => { key: string; cert: string };
}

export interface GatewayTwin {
  twinId: string;
  environmentId: string;
  organizationId: string;
  slug: string;
  /** Credentials the log must not keep (the twin definition's list). */
  redact?: RedactionRules;
  /** Index of this twin's request counter (host.ts); none when not counted. */
  slot?: number;
  /**
   * Serve it also at its own loopback address on the default HTTPS port (`127.<port/256>.<port%256>.1:443`),
   * for clients that match hosts without ports (the `gh` CLI inside a clone), where the process may bind it.
   */
  ownHost?: boolean;
}

interface Route extends GatewayTwin {
  /** The running workload's address; undefined while it (re)starts. */
  target?: string;
  client?: TwinClient;
  server?: DualListener;
  port?: number;
  /** The listener at the twin's own loopback address (port 443), when it has one. */
  hostServer?: DualListener;
  hostAddress?: string;
  redaction: CompiledRedaction;
}

/**
 * Request headers that belong to one hop, not to the twin (`expect`: the gateway's own server has
 * already answered 100 Continue).
 */
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
  'expect',
  'x-twin-admin-secret',
]);
/** What only this gateway may tell the twin about the client's request. */
const FORWARDED = new Set(['x-forwarded-host', 'x-forwarded-proto']);

const RESPONSE_HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * Methods that do not change a twin's state: their entry is journaled with the answer. Any other
 * request is journaled before it is forwarded, so no crash can leave a twin write without its
 * log row (it stays there as unanswered).
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Methods whose requests carry content: an empty one is sent with `content-length: 0`. */
const CONTENT_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `/_twin`, `/_twin/…` (also with extra leading slashes or an encoded underscore): never forwarded. */
export function isAdminPath(path: string): boolean {
  // Fast path: neither `_twin` nor an escape anywhere.
  if (!path.includes('_twin') && !path.includes('%')) return false;
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
 * Bytes of a request body the gateway holds: one past the twins' limit for the path, so a larger
 * body is drained rather than held in the control plane's memory, and the twin, still seeing too
 * many bytes, refuses it in its provider's shape.
 */
function readBody(req: IncomingMessage, path: string): Promise<Buffer> {
  const keep = maxBodyBytes(path) + 1;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    req.on('data', (c: Buffer) => {
      if (kept >= keep) return;
      const part = c.length > keep - kept ? c.subarray(0, keep - kept) : c;
      chunks.push(part);
      kept += part.length;
    });
    req.on('end', () => resolve(chunks.length === 0 ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The client's request as the twin gets it: its headers as they came (the gateway's node:http
 * server validated them), less those of this hop, with the twin's own Host, the original one as
 * X-Forwarded-Host, the scheme the client used as X-Forwarded-Proto (a twin's links name the URL
 * the caller used), and the body's length. A client's own X-Forwarded-* headers are dropped.
 */
export function requestHead(
  method: string,
  rawUrl: string,
  rawHeaders: readonly string[],
  twinHost: string,
  bodyLength: number,
  scheme?: 'http' | 'https',
): string {
  let head = `${method} ${rawUrl} HTTP/1.1\r\nhost: ${twinHost}\r\n`;
  let host: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (lower === 'host') host ??= rawHeaders[i + 1];
    if (HOP_BY_HOP.has(lower) || FORWARDED.has(lower)) continue;
    head += `${name}: ${rawHeaders[i + 1]}\r\n`;
  }
  if (host) head += `x-forwarded-host: ${host}\r\n`;
  if (scheme) head += `x-forwarded-proto: ${scheme}\r\n`;
  if (bodyLength > 0 || CONTENT_METHODS.has(method)) head += `content-length: ${bodyLength}\r\n`;
  return head + '\r\n';
}

function forwardTo(client: TwinClient, req: IncomingMessage, method: string, rawUrl: string, body: Buffer): Promise<TwinAnswer> {
  return new Promise((resolve, reject) => {
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    const head = requestHead(method, rawUrl, req.rawHeaders, client.host, body.length, scheme);
    client.request(head, body.length > 0 ? body : undefined, method === 'HEAD', (err, answer) => (err ? reject(err) : resolve(answer!)));
  });
}

const NO_BODY = Buffer.alloc(0);

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

const JSON_TYPE = 'application/json';

function jsonBody(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body));
}

export class TwinGateway {
  private readonly routes = new Map<string, Route>();
  private shared: DualListener | undefined;
  private sharedUrlPort: number | undefined;
  /**
   * Responses of the requests read and not yet answered (until their bytes are with the kernel):
   * their count is the requests in flight, and a drain makes each one close its connection.
   */
  private readonly answering = new Set<ServerResponse>();
  private drainWaiters: (() => void)[] = [];
  private draining = false;

  constructor(private readonly options: GatewayOptions) {}

  get hostRouting(): boolean {
    return this.options.domain !== undefined;
  }

  get requestsInFlight(): number {
    return this.answering.size;
  }

  /** Cluster mode: open the one host-routed listener. Local mode needs nothing up front. */
  async start(): Promise<void> {
    if (!this.hostRouting) return;
    const handler: RequestHandler = (req, res) => {
      const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
      const suffix = `.${this.options.domain!.toLowerCase()}`;
      const route = host.endsWith(suffix) ? this.routes.get(host.slice(0, -suffix.length)) : undefined;
      if (!route) {
        req.resume();
        const payload = jsonBody({ detail: 'Not Found' });
        res.writeHead(404, { 'content-type': JSON_TYPE, 'content-length': String(payload.length) });
        res.end(payload);
        return;
      }
      void this.forward(route, req, res);
    };
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
      const suffix = `.${this.options.domain!.toLowerCase()}`;
      const route = host.endsWith(suffix) ? this.routes.get(host.slice(0, -suffix.length)) : undefined;
      this.upgrade(route, req, socket, head);
    };
    this.shared = await this.listen(handler, this.options.sharedPort ?? 0, onUpgrade);
    this.sharedUrlPort = this.shared.port();
  }

  /** Port of the shared listener (cluster mode). */
  get sharedPort(): number | undefined {
    return this.sharedUrlPort;
  }

  /** A listener answering http:// and, given TLS material, https:// on the same port. */
  private async listen(handler: RequestHandler, port: number, onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): Promise<DualListener> {
    const listener = await listenDual(handler, { port, host: this.options.host, tls: this.options.tls, keepAliveTimeout: 65_000 });
    for (const server of [listener.http, listener.https]) {
      server?.on('clientError', answerClientError);
      server?.on('upgrade', onUpgrade);
    }
    return listener;
  }

  /**
   * Give a twin its public URL. Locally this opens its own port, reusing `preferredPort` when it is
   * free so the URL survives a control-plane restart.
   */
  async open(twin: GatewayTwin, preferredPort?: number | null): Promise<{ url: string; port: number | null; host?: string }> {
    let route = this.routes.get(twin.twinId);
    if (!route) {
      route = { ...twin, redaction: compileRedaction(twin.redact) };
      this.routes.set(twin.twinId, route);
    } else {
      route.redaction = compileRedaction(twin.redact);
      route.slot = twin.slot;
    }
    if (this.hostRouting) {
      return { url: `${this.options.publicScheme ?? 'https'}://${twin.twinId}.${this.options.domain}`, port: null };
    }
    if (!route.server) {
      const r = route;
      const handler: RequestHandler = (req, res) => void this.forward(r, req, res);
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(r, req, socket, head);
      let server: DualListener;
      try {
        server = await this.listen(handler, preferredPort ?? 0, onUpgrade);
      } catch (err) {
        if (!preferredPort) throw err;
        server = await this.listen(handler, 0, onUpgrade);
      }
      route.server = server;
      route.port = server.port();
    }
    if (twin.ownHost && !route.hostServer) await this.openOwnHost(route);
    return { url: `http://${this.options.host}:${route.port}`, port: route.port ?? null, ...(route.hostAddress ? { host: route.hostAddress } : {}) };
  }

  /**
   * The twin's own loopback address at port 443, with a certificate for it. Binding a port below
   * 1024 needs root or CAP_NET_BIND_SERVICE (or a lowered net.ipv4.ip_unprivileged_port_start):
   * where the process may not, the twin keeps only its port URL.
   */
  private async openOwnHost(route: Route): Promise<void> {
    const makeTls = this.options.hostTls;
    if (!makeTls || route.port === undefined || this.options.host !== '127.0.0.1') return;
    const address = loopbackHostFor(route.port);
    const r = route;
    try {
      const listener = await listenDual((req, res) => void this.forward(r, req, res), {
        port: 443,
        host: address,
        tls: makeTls(address),
        keepAliveTimeout: 65_000,
      });
      for (const server of [listener.http, listener.https]) {
        server?.on('clientError', answerClientError);
        server?.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(r, req, socket, head));
      }
      route.hostServer = listener;
      route.hostAddress = address;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      this.options.onError?.(`twin ${route.twinId} has no address of its own (${address}:443: ${code ?? (err as Error).message})`, err);
    }
  }

  /** Point the twin's URL at its running workload (undefined: it is restarting; answer 503). */
  setTarget(twinId: string, address: string | undefined): void {
    const route = this.routes.get(twinId);
    if (!route || route.target === address) return;
    const old = route.client;
    route.target = address;
    route.client = address ? new TwinClient(address, { connections: 64, keepAliveMs: 60_000, localSocket: this.options.twinLocalSockets }) : undefined;
    // Requests already sent to the old workload are still answered from it.
    if (old) void old.close();
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
    const client = route.client;
    route.client = undefined;
    route.target = undefined;
    if (route.server) {
      const server = route.server;
      route.server = undefined;
      await server.close();
    }
    if (route.hostServer) {
      const server = route.hostServer;
      route.hostServer = undefined;
      route.hostAddress = undefined;
      await server.close();
    }
    if (client) await client.close();
  }

  private servers(): DualListener[] {
    const out = [...this.routes.values()].flatMap((r) => [r.server, r.hostServer]).filter((s): s is DualListener => s !== undefined);
    if (this.shared) out.push(this.shared);
    return out;
  }

  /**
   * Stop taking connections and let every request already read finish (answered and logged), for at
   * most `timeoutMs`. Resolves with the number still unanswered when time ran out (0 normally).
   */
  async drain(timeoutMs: number): Promise<number> {
    this.draining = true;
    // Answers still to come close their connections: no request can follow them on it.
    let unflushed = false;
    for (const res of this.answering) {
      res.shouldKeepAlive = false;
      if (res.writableEnded) unflushed = true;
    }
    for (const s of this.servers()) {
      s.stopAccepting();
      // Idle connections close now, unless an ended answer is still being written (the call would
      // destroy its socket too); they close once the answers in flight are out.
      if (!unflushed) s.closeIdleConnections();
    }
    if (this.requestsInFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.drainWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    for (const s of this.servers()) s.closeIdleConnections();
    return this.requestsInFlight;
  }

  async closeAll(): Promise<void> {
    const routes = [...this.routes.values()];
    this.routes.clear();
    await Promise.all(routes.map((r) => this.closeRoute(r)));
    if (this.shared) {
      const server = this.shared;
      this.shared = undefined;
      await server.close();
    }
  }

  private finished(res: ServerResponse): void {
    this.answering.delete(res);
    this.options.settled?.(this.requestsInFlight);
    if (this.requestsInFlight === 0 && this.drainWaiters.length > 0) {
      for (const w of this.drainWaiters.splice(0)) w();
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
      this.options.count?.(route.slot, this.requestsInFlight);
      const row = toLogRow({
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
        redaction: route.redaction,
      });
      // The tunnel is already open: its log entry is written after the fact, never in its way.
      this.options.writer.write(row, (committed) => {
        if (!committed) this.options.onError?.('request log entry of a WebSocket upgrade dropped', undefined);
      });
    });
  }

  /** The request's log row: with its answer, or UNANSWERED (journaled before it is forwarded). */
  private row(
    route: Route,
    method: string,
    path: string,
    queryString: string,
    occurredAt: string,
    req: IncomingMessage,
    requestBody: Buffer | undefined,
    answered: { statusCode: number; durationMs: number; responseContentType?: string; responseBody?: Buffer; fidelity?: FidelityLevel; fault?: string } = {
      statusCode: UNANSWERED,
      durationMs: 0,
    },
  ): CapturedRow {
    return toLogRow({
      organizationId: route.organizationId,
      environmentId: route.environmentId,
      twinId: route.twinId,
      twinSlug: route.slug,
      method,
      path,
      queryString,
      occurredAt,
      requestHeaders: req.headers,
      requestBody,
      redaction: route.redaction,
      ...answered,
    });
  }

  /** Journal a request's entry before it is forwarded; false when the journal did not take it. */
  private journalFirst(row: CapturedRow): Promise<boolean> {
    return new Promise((resolve) => this.options.writer.write(row, resolve));
  }

  private async forward(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.answering.add(res);
    const started = performance.now();
    const occurredAt = new Date().toISOString();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const queryString = q === -1 ? '' : rawUrl.slice(q + 1);
    const method = req.method ?? 'GET';
    this.options.count?.(route.slot, this.requestsInFlight);
    // While draining, each answer closes its connection so the client reconnects elsewhere.
    if (this.draining) res.shouldKeepAlive = false;

    let requestBody: Buffer | undefined;
    let statusCode: number;
    /** Answer headers, names and values in turn. */
    let headers: string[];
    let responseBody: Buffer;
    let responseContentType: string | undefined;
    /** The length a HEAD answer announces (the body it would have), as the twin said it. */
    let announcedLength: string | undefined;
    /** Whether the twin answered (a gateway-made answer changed nothing and stands even unlogged). */
    let fromTwin = false;
    /** How the twin made its answer (its Twin-Fidelity header), for the log. */
    let fidelity: FidelityLevel | undefined;
    /** The injected fault the twin names (its Twin-Fault header), for the log; a `drop` closes the client's connection. */
    let fault: string | undefined;
    /** The request's entry journaled before it was forwarded (state-changing methods). */
    let opened: CapturedRow | undefined;
    const own = (status: number, detail: string) => {
      statusCode = status;
      responseBody = jsonBody({ detail });
      responseContentType = JSON_TYPE;
      headers = ['content-type', JSON_TYPE];
    };
    try {
      // A request that announces no body has none: nothing to wait for (node:http discards the stream's end).
      requestBody = hasBody(req) ? await readBody(req, path) : NO_BODY;
      const client = route.client;
      if (isAdminPath(path)) own(404, 'Not Found');
      else if (!client) own(503, 'The twin is starting; retry in a moment.');
      else if (!this.options.writer.writable) own(503, 'The request log cannot be written right now; the request was not forwarded. Retry later.');
      else if (!SAFE_METHODS.has(method) && !(await this.journalFirst((opened = this.row(route, method, path, queryString, occurredAt, req, requestBody))))) {
        opened = undefined;
        own(503, 'The request log could not be written; the request was not forwarded. Retry later.');
      } else {
        const answer = await forwardTo(client, req, method, rawUrl, requestBody);
        responseBody = answer.body;
        statusCode = answer.statusCode;
        fromTwin = true;
        headers = [];
        const raw = answer.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i]!.toLowerCase();
          if (name === 'content-length' && method === 'HEAD') announcedLength = raw[i + 1];
          if (RESPONSE_HOP_BY_HOP.has(name)) continue;
          if (name === 'content-type' && responseContentType === undefined) responseContentType = raw[i + 1];
          else if (name === FIDELITY_HEADER && isFidelityLevel(raw[i + 1])) fidelity = raw[i + 1] as FidelityLevel;
          else if (name === FAULT_HEADER) fault = raw[i + 1];
          headers.push(raw[i]!, raw[i + 1]!);
        }
      }
    } catch (err) {
      own(502, 'The twin did not answer; it may be restarting.');
      this.options.onError?.(`gateway forward to twin ${route.twinId} failed`, err);
    }
    const answered = {
      statusCode: statusCode!,
      durationMs: performance.now() - started,
      responseContentType,
      responseBody: responseBody!,
      fidelity: fromTwin ? fidelity : undefined,
      fault: fromTwin ? fault : undefined,
    };
    // A dropped connection has no answer: logged with no status (the fault says why).
    const dropped = fault?.endsWith(' drop') === true;
    if (dropped) answered.statusCode = UNANSWERED;
    const row = opened ? answeredRow(opened, answered) : this.row(route, method, path, queryString, occurredAt, req, requestBody, answered);
    // The answer leaves only once its log entry is committed.
    this.options.writer.write(row, (committed) => {
      if (!committed && fromTwin) own(503, 'The request log could not be written; retry later.');
      headers.push('content-length', fromTwin && announcedLength !== undefined ? announcedLength : String(responseBody.length));
      if (dropped && committed) {
        res.destroy();
        this.finished(res);
        return;
      }
      try {
        res.writeHead(statusCode, headers);
        res.end(responseBody);
      } catch (err) {
        this.options.onError?.('gateway answer failed', err);
        res.destroy();
      }
      // In flight until its bytes are with the kernel ('close' follows 'finish'): Node's
      // closeIdleConnections, which a drain calls, would destroy a socket still holding an ended
      // answer and the client would get a reset instead.
      if (res.destroyed) this.finished(res);
      else res.once('close', () => this.finished(res));
    });
  }
}
