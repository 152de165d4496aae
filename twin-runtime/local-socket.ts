// A twin run as a child process of the control plane (the process driver) also answers on a Unix
// socket, and the gateway reaches it there instead of over loopback TCP: the same HTTP, without
// the kernel's TCP path on both ends of every proxied request (scripts/bench/gateway.ts at 16
// connections, 7 alternated pairs: GET through the gateway 0.58× → 0.61× of direct (median; better
// in 7 of 7), POST 0.69× → 0.71×).
//
// The socket is in Linux's abstract namespace, named after the twin's loopback TCP address: no file
// to create, protect or clean up after a crash, no path-length limit, and the same reach as the port
// it is named after (any process of the host's network namespace). While the twin holds the port
// nobody else can hold the name, so the name is unique for as long as it is used. Elsewhere (no
// abstract namespace) nothing changes: twins answer on TCP only.

import { connect, createServer, type Server, type Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { undici } from './egress.js';

/** The local socket name for a twin's `http://127.0.0.1:PORT` address; undefined where there is none. */
export function localSocketFor(address: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !url.port || (url.hostname !== '127.0.0.1' && url.hostname !== '[::1]')) return undefined;
  return `\0twins-twin-${url.hostname}:${url.port}`;
}

/**
 * Listen on the local socket of `address`, handing each connection to `onConnection` (the twin's
 * HTTP server). Resolves with the listener, or undefined where the platform has no such socket.
 */
export async function listenLocalSocket(address: string, onConnection: (socket: Socket) => void): Promise<LocalSocketListener | undefined> {
  const name = localSocketFor(address);
  if (!name) return undefined;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(name, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return new LocalSocketListener(server, sockets);
}

export class LocalSocketListener {
  constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
  ) {}

  /** Connections open now. */
  get connections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An undici connector for a twin at `address`: its local socket first; when that cannot be reached
 * (a twin started before this existed, one in a container) TCP, for this pool from then on.
 * Undefined when the address has no local socket.
 */
export function localSocketFirst(address: string): buildConnector.connector | undefined {
  const name = localSocketFor(address);
  if (!name) return undefined;
  // undici only where a client is built (the gateway): a twin answering on the socket never loads it.
  const tcp = undici().buildConnector({});
  let local = true;
  return (options, callback) => {
    if (!local) return tcp(options, callback);
    const socket = connect({ path: name });
    const onError = (err: Error) => {
      socket.destroy();
      // Only a name nobody listens on falls back; the twin's own failures are the pool's to report.
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' && (err as NodeJS.ErrnoException).code !== 'ENOENT') {
        callback(err, null);
        return;
      }
      local = false;
      tcp(options, callback);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      callback(null, socket);
    });
    return socket;
  };
}
