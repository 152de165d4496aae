// WebSocket upgrades through the gateway (Slack's Socket Mode link): the client's upgrade request
// is replayed to the twin's workload over a fresh TCP connection and the two sockets are then
// joined byte for byte. Admin paths are refused as for plain requests.

import { connect } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** Request headers not replayed (the gateway's own hop; the admin secret never). */
const DROPPED = new Set(['x-twin-admin-secret']);

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
}

/**
 * Tunnel one upgrade to `target` (`http://host:port`), or refuse it with 404 (admin path) or 503
 * (no workload). `onDone` is told the outcome once (101 when the twin accepted, else the status).
 */
export function tunnelUpgrade(
  target: string | undefined,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  isAdminPath: (path: string) => boolean,
  onDone?: (status: number) => void,
): void {
  const path = (req.url ?? '/').split('?')[0]!;
  if (isAdminPath(path)) {
    refuse(socket, '404 Not Found');
    onDone?.(404);
    return;
  }
  if (!target) {
    refuse(socket, '503 Service Unavailable');
    onDone?.(503);
    return;
  }
  const url = new URL(target);
  const upstream = connect(Number(url.port || 80), url.hostname);
  let reported = false;
  const report = (status: number) => {
    if (!reported) onDone?.(status);
    reported = true;
  };
  upstream.once('connect', () => {
    const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!DROPPED.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    if (req.headers.host) lines.push(`x-forwarded-host: ${req.headers.host}`);
    upstream.write(lines.join('\r\n') + '\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.once('data', (first: Buffer) => report(Number(/^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1', 0, 16))?.[1] ?? 502)));
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.once('error', () => {
    report(502);
    if (!socket.destroyed) refuse(socket, '502 Bad Gateway');
  });
  socket.once('error', () => upstream.destroy());
  socket.once('close', () => upstream.destroy());
  upstream.once('close', () => socket.destroy());
}
