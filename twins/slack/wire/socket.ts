// The Socket Mode link: `GET /link/?ticket=…&app_id=…` upgraded to a WebSocket, the URL
// apps.connections.open answers (through the gateway when the twin is behind one). A ticket is
// good for one connection; anything else is refused before the upgrade.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { WebSocketServer } from 'ws';
import { loadOnce } from '../../../twin-runtime/load-once.js';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { appLink } from '../model/app-link.js';
import { botUser, ensureWorkspace } from '../model/workspace.js';

export const LINK_PATH = '/link/';

/** ws (14 modules) with the first Socket Mode connection, not at the twin's start. */
const ws = loadOnce(() => createRequire(import.meta.url)('ws') as typeof import('ws'));

const servers = new WeakMap<TwinContext, WebSocketServer>();

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
}

/** The WebSocket URL of a ticket, on the twin's public base URL. */
export function linkUrl(ctx: TwinContext, ticket: string, appId: string): string {
  const base = ctx.baseUrl.replace(/^http(s?):/i, 'ws$1:').replace(/\/+$/, '');
  return `${base}${LINK_PATH}?ticket=${encodeURIComponent(ticket)}&app_id=${encodeURIComponent(appId)}`;
}

export function upgradeSlack(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: TwinContext): void {
  const url = new URL(req.url ?? '/', 'http://twin.invalid');
  if (url.pathname !== LINK_PATH && url.pathname !== '/link') {
    refuse(socket, '404 Not Found');
    return;
  }
  const link = appLink(ctx);
  if (!link.redeemTicket(url.searchParams.get('ticket'))) {
    refuse(socket, '401 Unauthorized');
    return;
  }
  let wss = servers.get(ctx);
  if (!wss) servers.set(ctx, (wss = new (ws().WebSocketServer)({ noServer: true, maxPayload: 1024 * 1024 })));
  ensureWorkspace(ctx);
  const appId = botUser(ctx).profile.api_app_id ?? '';
  wss.handleUpgrade(req, socket, head, (ws) => link.attach(ws, appId));
}
