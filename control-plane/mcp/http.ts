// POST /mcp: the MCP tools over streamable HTTP (stateless: a server and a transport per request).
// The route is not public, so the caller's bearer token or API key is checked first, exactly as for
// REST; the tools then call the REST routes in-process (Fastify inject) with that same credential.

import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTwinsClient } from '../client/index.js';
import { loadAllTwins } from '../../twin-runtime/registry.js';
import { createMcpServer, mcpInstructions } from './tools.js';

export const MCP_PATH = '/mcp';

/** A fetch that answers through the app itself, without a socket. */
export function injectFetch(app: FastifyInstance): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(payload ? { payload } : {}),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, String(one));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };
}

const mcpRoutes: FastifyPluginAsync = async (app) => {
  const fetch = injectFetch(app);
  const instructions = mcpInstructions((await loadAllTwins()).map((d) => d.name));
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const authorization = req.headers.authorization!;
    const token = authorization.replace(/^Bearer\s+/i, '').trim();
    const server = createMcpServer(() => createTwinsClient({ url: 'http://control-plane.internal', token, fetch }), instructions);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE), so those answer
  // 405 with `Allow: POST` like any other known path (app.ts), as the MCP transport spec asks.
  app.post(MCP_PATH, { schema: { hide: true } }, handler);
};

export default mcpRoutes;
