// POST /mcp: the MCP tools over streamable HTTP (stateless: a server and a transport per request).
// The route is not public, so the caller's bearer token or API key is checked first, exactly as for
// REST; the tools then call the REST routes in-process (Fastify inject) with that same credential.
// As the MCP authorization spec asks, /mcp is an OAuth protected resource that describes itself
// (RFC 9728: /.well-known/oauth-protected-resource/mcp, named by every 401's WWW-Authenticate), with
// the identity provider's issuer as its authorization server when there is one (TWINS_IDP=oidc); the
// local identity provider has no HTTP authorization server (tokens come from `twins token`).

import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { README_PATH, requestOrigin } from '../http/openapi.js';
import { answerMcpRequest } from '../../twin-runtime/mcp-transport.js';
import { createTwinsClient } from '../client/index.js';
import { loadAllTwins } from '../../twin-runtime/registry.js';
import { createMcpServer, mcpInstructions } from './tools.js';

export const MCP_PATH = '/mcp';

/** RFC 9728 §3.1: the resource's path goes after the well-known prefix. */
export const MCP_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** The protected-resource metadata of /mcp as `origin` names it (RFC 9728 §2). */
export function mcpResourceMetadata(origin: string, config: Pick<Config, 'idp' | 'idpIssuer'>): Record<string, unknown> {
  const issuer = config.idp === 'oidc' && config.idpIssuer && /^https?:\/\//.test(config.idpIssuer) ? config.idpIssuer : undefined;
  return {
    resource: origin + MCP_PATH,
    ...(issuer ? { authorization_servers: [issuer] } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'Twins MCP server',
    resource_documentation: origin + README_PATH,
  };
}

/** The challenge a 401 from /mcp carries: where its metadata is (MCP authorization, RFC 9728 §5.1). */
export function mcpChallenge(req: FastifyRequest): string {
  return `Bearer resource_metadata="${requestOrigin(req)}${MCP_RESOURCE_METADATA_PATH}"`;
}

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
    reply.hijack();
    await answerMcpRequest(server, req.raw, reply.raw, req.body);
  };
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE), so those answer
  // 405 with `Allow: POST` like any other known path (app.ts), as the MCP transport spec asks.
  app.post(MCP_PATH, { schema: { hide: true } }, handler);

  // The resource's own path, and the root one clients try when a resource has no path of its own.
  const metadata = async (req: FastifyRequest) => mcpResourceMetadata(requestOrigin(req), app.services.config);
  for (const path of [MCP_RESOURCE_METADATA_PATH, '/.well-known/oauth-protected-resource'])
    app.get(path, { config: { public: true }, schema: { hide: true } }, metadata);
};

export default mcpRoutes;
