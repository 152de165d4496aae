// The gateway's HTTP/1.1 client for one twin: keep-alive connections to the twin's workload (its
// local socket for a child-process twin, twin-runtime/local-socket.ts, else TCP), one request at a
// time on each, the answer held whole (it leaves only after its log entry, gateway.ts).
//
// Why not undici's Pool, which this replaced: per proxied request undici builds and validates a
// Request, arms its timers, parses the answer in WebAssembly with a JavaScript call per header
// field and value, and turns the headers into an object the gateway then turned back into a list.
// Here a request is one string written with one write(), and the answer is parsed by Node's own
// llhttp binding (HTTPParser, the parser node:http's client uses, in C++) that hands over all
// headers in one call. scripts/bench/gateway.ts measures the difference (issue 20).
//
// Headers are written as they came in (the client's request was already validated by the
// gateway's node:http server); the twin's answer is parsed strictly, with Node's header size
// limit. A connection that breaks, times out or answers out of turn fails its request (the
// gateway answers 502) and is closed; nothing is retried, since the twin may have acted on it.

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';
import { localSocketFirst } from '../../twin-runtime/local-socket.js';

/** The part of node:_http_common's HTTPParser this client uses. */
interface NodeHttpParser {
  initialize(type: number, resource: object, maxHeaderSize?: number, lenient?: number): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error | undefined;
  close(): void;
  [callback: number]: unknown;
}
interface NodeHttpParserClass {
  new (): NodeHttpParser;
  readonly RESPONSE: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
}

// Not in Node's documentation, but the module node:http itself is built on (its callbacks as
// node:http's own client uses them since Node 20); should a Node ever lack it, the gateway says so
// at start, and test/gateway/twin-client.test.ts fails.
const HTTPParser = (createRequire(import.meta.url)('node:_http_common') as { HTTPParser?: NodeHttpParserClass }).HTTPParser!;
if (typeof HTTPParser !== 'function')
  throw new Error(`this Node.js (${process.version}) has no HTTPParser in node:_http_common: the gateway cannot parse twins' answers`);

export interface TwinAnswer {
  statusCode: number;
  /** Header names and values in turn, as the twin sent them. */
  rawHeaders: string[];
  body: Buffer;
}

export interface TwinClientOptions {
  /** Connections open at most; further requests wait for one. */
  connections?: number;
  /** An idle connection is closed after this long (or sooner, when the twin's Keep-Alive hint says so). */
  keepAliveMs?: number;
  /** A request whose answer has not fully arrived after this long fails. */
  timeoutMs?: number;
  /** Reach a child-process twin on its local socket (twin-runtime/local-socket.ts). */
  localSocket?: boolean;
}

type Callback = (err: Error | null, answer?: TwinAnswer) => void;

interface Pending {
  head: string;
  body: Buffer | undefined;
  /** A HEAD request's answer has no body whatever its headers say. */
  noBody: boolean;
  callback: Callback;
}

/** Why a request failed on its connection (the gateway logs it; the caller sees 502). */
export class TwinConnectionError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'TwinConnectionError';
  }
}

const KEEP_ALIVE_HINT = /timeout=(\d+)/i;

/** How often idle connections past their keep-alive time are closed. */
const SWEEP_MS = 500;

class Connection {
  private readonly parser = new HTTPParser();
  private current: Pending | undefined;
  private statusCode = 0;
  private rawHeaders: string[] = [];
  private chunks: Buffer[] = [];
  private keepAlive = false;
  /** The current request's answer is complete (delivered when the bytes that carried it are parsed). */
  private answered = false;
  /** The twin sent more than the answer: the connection is not used again. */
  private outOfTurn = false;
  /** While idle: when it is closed (the client's sweep, every SWEEP_MS). */
  idleUntil = Infinity;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly owner: TwinClient,
    private readonly timeoutMs: number,
  ) {
    const p = this.parser;
    p.initialize(HTTPParser.RESPONSE, {}, 0, 0);
    // More than 32 header pairs arrive in parts before the rest with kOnHeadersComplete.
    p[HTTPParser.kOnHeaders] = (headers: string[]) => {
      for (const h of headers) this.rawHeaders.push(h);
    };
    p[HTTPParser.kOnHeadersComplete] = (
      _major: number,
      _minor: number,
      headers: string[] | undefined,
      _method: unknown,
      _url: unknown,
      statusCode: number,
      _statusMessage: string,
      _upgrade: boolean,
      shouldKeepAlive: boolean,
    ) => {
      // A second answer in the bytes that carried the first: the twin answered out of turn (it is
      // parsed, and dropped).
      if (this.answered || !this.current) {
        this.outOfTurn = true;
        return 0;
      }
      if (headers) for (const h of headers) this.rawHeaders.push(h);
      // An informational answer (100 Continue) precedes the real one: skip it.
      if (statusCode >= 100 && statusCode < 200) {
        this.rawHeaders = [];
        return 1;
      }
      this.statusCode = statusCode;
      this.keepAlive = shouldKeepAlive;
      // 1 tells llhttp the message has no body.
      return this.current.noBody || statusCode === 204 || statusCode === 304 ? 1 : 0;
    };
    p[HTTPParser.kOnBody] = (chunk: Buffer) => {
      if (!this.outOfTurn) this.chunks.push(chunk);
    };
    p[HTTPParser.kOnMessageComplete] = () => {
      // The end of a skipped informational answer, or of one out of turn.
      if (this.statusCode === 0 || this.outOfTurn) return;
      this.answered = true;
    };
    socket.on('data', (data: Buffer) => {
      if (!this.current) return this.fail(new TwinConnectionError('the twin sent bytes nobody asked for', 'UNSOLICITED'));
      const parsed = this.parser.execute(data);
      // Delivered once the parser is done with these bytes: the next request may go out at once.
      // Bytes after a whole answer that are no answer end the connection, not the answer.
      if (this.answered) {
        if (parsed instanceof Error) this.outOfTurn = true;
        return this.complete();
      }
      if (parsed instanceof Error)
        this.fail(new TwinConnectionError(`the twin's answer could not be parsed (${(parsed as NodeJS.ErrnoException).code ?? parsed.message})`, 'PARSE'));
    });
    socket.on('end', () => {
      // An answer delimited by the connection's end completes here; any other is cut short.
      if (this.current && !this.answered) this.parser.finish();
      if (this.answered) {
        this.keepAlive = false;
        return this.complete();
      }
      this.fail(new TwinConnectionError('the twin closed the connection before its answer was complete', 'CLOSED'));
    });
    socket.on('error', (err: Error) => this.fail(new TwinConnectionError(err.message, (err as NodeJS.ErrnoException).code ?? 'SOCKET')));
    socket.on('close', () => this.fail(new TwinConnectionError('the twin closed the connection before its answer was complete', 'CLOSED')));
    // Node's socket timeout counts inactivity and is refreshed by every read and write: armed once,
    // it fails a request the twin stops answering (an idle connection is swept long before).
    socket.setTimeout(this.timeoutMs);
    socket.on('timeout', () => this.fail(new TwinConnectionError(`the twin did not answer within ${this.timeoutMs} ms`, 'TIMEOUT')));
  }

  send(request: Pending): void {
    this.idleUntil = Infinity;
    this.current = request;
    this.statusCode = 0;
    this.keepAlive = false;
    if (request.body && request.body.length > 0) {
      this.socket.cork();
      this.socket.write(request.head, 'latin1');
      this.socket.write(request.body);
      this.socket.uncork();
    } else {
      this.socket.write(request.head, 'latin1');
    }
  }

  private complete(): void {
    const request = this.current!;
    const answer: TwinAnswer = {
      statusCode: this.statusCode,
      rawHeaders: this.rawHeaders,
      body: this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks),
    };
    const reusable = this.keepAlive && !this.outOfTurn;
    const hint = reusable ? keepAliveHint(this.rawHeaders) : undefined;
    this.current = undefined;
    this.answered = false;
    this.rawHeaders = [];
    this.chunks = [];
    if (reusable) this.owner.release(this, hint);
    else this.close();
    request.callback(null, answer);
  }

  /** Wait idle for the next request, at most `ms` (give or take the sweep's SWEEP_MS). */
  idle(ms: number): void {
    this.idleUntil = Date.now() + ms;
  }

  private fail(err: TwinConnectionError): void {
    const request = this.current;
    this.current = undefined;
    this.close();
    request?.callback(err);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.owner.forget(this);
    // Not inside one of its own callbacks (Node's http client defers it the same way).
    setImmediate(() => this.parser.close());
  }
}

/** Seconds of a `Keep-Alive: timeout=N` answer header, as milliseconds; undefined without one. */
function keepAliveHint(rawHeaders: string[]): number | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 10 && rawHeaders[i]!.toLowerCase() === 'keep-alive') {
      const m = KEEP_ALIVE_HINT.exec(rawHeaders[i + 1]!);
      if (m) return Number(m[1]) * 1000;
    }
  }
  return undefined;
}

export class TwinClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: Pending[] = [];
  private opening = 0;
  /** No new requests; those taken are still answered (close()). */
  private closing = false;
  private whenClosed: (() => void) | undefined;
  private sweeping: NodeJS.Timeout | undefined;
  private readonly connector: buildConnector.connector;
  private readonly url: URL;
  private readonly max: number;
  private readonly keepAliveMs: number;
  private readonly timeoutMs: number;
  /** The Host header the twin sees: its own address. */
  readonly host: string;

  constructor(address: string, options: TwinClientOptions = {}) {
    this.url = new URL(address);
    if (this.url.protocol !== 'http:') throw new Error(`twin address ${address}: the gateway reaches twins over http:// only`);
    this.host = this.url.host;
    this.max = options.connections ?? 64;
    this.keepAliveMs = options.keepAliveMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.connector = (options.localSocket ? localSocketFirst(address) : undefined) ?? buildConnector({});
  }

  /** Connections open now (idle or busy). */
  get connections(): number {
    return this.all.size;
  }

  /**
   * Send `head` (request line and headers, ending with the blank line, latin1) and `body`; the
   * callback gets the whole answer or the reason there is none.
   */
  request(head: string, body: Buffer | undefined, noBody: boolean, callback: Callback): void {
    if (this.closing) {
      callback(new TwinConnectionError('the twin client is closed', 'CLOSED'));
      return;
    }
    const pending: Pending = { head, body, noBody, callback };
    // A closed connection has left `idle` already (forget()).
    const conn = this.idle.pop();
    if (conn) {
      conn.send(pending);
      return;
    }
    this.waiting.push(pending);
    this.openForWaiting();
  }

  /** Open a connection when requests wait beyond those being opened for them (up to the maximum). */
  private openForWaiting(): void {
    if (this.waiting.length > this.opening && this.all.size + this.opening < this.max) this.open();
  }

  private open(): void {
    this.opening += 1;
    const options = { hostname: this.url.hostname, host: this.url.host, protocol: 'http:', port: this.url.port || '80', servername: null };
    this.connector(options as unknown as buildConnector.Options, (err, socket) => {
      this.opening -= 1;
      if (err || !socket) {
        // The twin cannot be reached now: every waiting request fails.
        const reason = new TwinConnectionError(err?.message ?? 'no connection', (err as NodeJS.ErrnoException | null)?.code ?? 'CONNECT');
        for (const w of this.waiting.splice(0)) w.callback(reason);
        this.settle();
        return;
      }
      const conn = new Connection(socket as Socket, this, this.timeoutMs);
      this.all.add(conn);
      this.release(conn, undefined);
    });
  }

  /** A connection is free again: the next waiting request takes it, else it waits idle. */
  release(conn: Connection, hintMs: number | undefined): void {
    const next = this.waiting.shift();
    if (next) {
      conn.send(next);
      return;
    }
    if (this.closing) {
      conn.close();
      return;
    }
    // Closed well before the twin would close it (a second, plus the sweep's delay), so no request
    // meets a closing connection.
    const limit = hintMs === undefined ? this.keepAliveMs : Math.min(this.keepAliveMs, hintMs - 1000 - SWEEP_MS);
    if (limit <= 0) {
      conn.close();
      return;
    }
    conn.idle(limit);
    this.idle.push(conn);
    this.sweeping ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** Close the idle connections past their time (one timer per client, not one per request). */
  private sweep(): void {
    const now = Date.now();
    for (const c of [...this.idle]) if (c.idleUntil <= now) c.close();
    if (this.all.size === 0 && this.sweeping) {
      clearInterval(this.sweeping);
      this.sweeping = undefined;
    }
  }

  forget(conn: Connection): void {
    this.all.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i !== -1) this.idle.splice(i, 1);
    this.openForWaiting();
    this.settle();
  }

  private settle(): void {
    if (!this.closing || this.all.size > 0 || this.opening > 0 || this.waiting.length > 0) return;
    if (this.sweeping) clearInterval(this.sweeping);
    this.sweeping = undefined;
    this.whenClosed?.();
  }

  /** Take no more requests; resolves once those taken are answered and every connection is closed. */
  close(): Promise<void> {
    this.closing = true;
    for (const c of this.idle.splice(0)) c.close();
    const done = new Promise<void>((resolve) => (this.whenClosed = resolve));
    this.settle();
    return done;
  }
}
