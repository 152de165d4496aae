// Requests too malformed to reach a route (a head over the parser's limit, broken framing) still
// get the `{"detail": …}` body: 431 for headers too large, 400 otherwise. Used by the API server
// (Fastify's clientErrorHandler) and by every gateway listener.

import type { Socket } from 'node:net';

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ detail: tooLarge ? 'Request header fields too large.' : 'Bad Request: the request is not valid HTTP.' });
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
