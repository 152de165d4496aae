// One MCP request over streamable HTTP, stateless (a server and a transport per request), with the
// official SDK's transport: the control plane's /mcp (control-plane/mcp/http.ts) and every twin's
// /mcp (twin-runtime/mcp.ts) answer through this, so there is one transport in the code base.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** What a stateless MCP request needs of a server: the SDK's `Server` and `McpServer` both fit. */
export interface McpServerLike {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Answer one MCP POST on `res` with a fresh `server` (its JSON-RPC message already parsed as
 * `body`); the server and its transport are closed once the answer's connection is done with.
 */
export async function answerMcpRequest(server: McpServerLike, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
