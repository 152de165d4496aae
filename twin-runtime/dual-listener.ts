// One port, two schemes: the first byte of each connection says which. A TLS ClientHello starts
// with 0x16 (handshake record); anything else is plain HTTP. TLS connections go to an https server,
// the rest to an http server, both sharing one request handler, so a twin URL answers http:// and
// https:// on the same host and port.

import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, Server as NetServer, type AddressInfo, type Socket } from 'node:net';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DualListener {
  /** The plain HTTP server (its settings apply to both schemes' requests where Node shares them). */
  readonly http: HttpServer;
  readonly https?: HttpsServer;
  port(): number;
  /** Stop taking connections (those open stay until they end or are closed). */
  stopAccepting(): void;
  /** Close keep-alive connections that carry no request now. */
  closeIdleConnections(): void;
  close(): Promise<void>;
}

const TLS_HANDSHAKE = 0x16;
/** A connection that sends nothing for this long is closed before a scheme is chosen. */
const FIRST_BYTE_TIMEOUT_MS = 30_000;

/**
 * Listen on `port` (0: a free one) at `host`. Without `tls` this is a plain http server; with it,
 * each connection is routed by its first byte.
 */
export async function listenDual(
  handler: RequestHandler,
  options: { port: number; host: string; tls?: { key: string; cert: string }; keepAliveTimeout?: number },
): Promise<DualListener> {
  const http = createHttpServer(handler);
  if (options.keepAliveTimeout) http.keepAliveTimeout = options.keepAliveTimeout;
  const https = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : undefined;
  if (https && options.keepAliveTimeout) https.keepAliveTimeout = options.keepAliveTimeout;
  // Servers that never listen do not track their connections; these are all of them.
  const sockets = new Set<Socket>();
  if (https) {
    // Node's http servers start tracking connections (what closeIdleConnections ends) when they
    // emit 'listening'; these two never listen themselves (the front does), so they are told to.
    http.emit('listening');
    https.emit('listening');
  }
  const front: NetServer | HttpServer = https
    ? createNetServer((socket) => {
        sockets.add(socket);
        socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
        socket.once('close', () => sockets.delete(socket));
        socket.once('data', (first: Buffer) => {
          socket.setTimeout(0);
          socket.pause();
          socket.unshift(first);
          (first[0] === TLS_HANDSHAKE ? https : http).emit('connection', socket);
          process.nextTick(() => socket.resume());
        });
      })
    : http;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      front.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      front.off('error', onError);
      resolve();
    };
    front.once('error', onError);
    front.once('listening', onListening);
    front.listen(options.port, options.host);
  });
  return {
    http,
    https,
    port: () => (front.address() as AddressInfo).port,
    stopAccepting() {
      // net.Server's own close: http.Server's (Node ≥ 19) also destroys the connections it deems
      // idle, among them one whose ended answer is still being written, cutting that answer.
      if (front.listening) NetServer.prototype.close.call(front);
    },
    closeIdleConnections() {
      http.closeIdleConnections();
      https?.closeIdleConnections();
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (front === http) http.closeAllConnections();
      if (front.listening) await new Promise<void>((r) => front.close(() => r()));
      if (front !== http) {
        // The http/https servers never listened; closing them only ends their idle sockets.
        http.close();
        https?.close();
      }
    },
  };
}
