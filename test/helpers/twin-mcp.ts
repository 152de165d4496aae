// A twin's own MCP server as an agent meets it: the MCP SDK's Client over streamable HTTP to the
// credential's `mcp_url` with nothing but the twin key, and the check that its tools are the
// provider's published list (names and input schemas, the twin's pinned spec/mcp-tools.json).

import { isDeepStrictEqual } from 'node:util';
import type { Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function connectMcp(mcpUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'twins-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

export interface McpCaller {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The first content item's text. */
  text(result: CallToolResult): string;
  /** The first content item's text, parsed. */
  json(result: CallToolResult): any;
}

export function caller(client: Client): McpCaller {
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    text,
    json: (r) => JSON.parse(text(r)),
  };
}

/** Compare the served tool list with the pinned published one; the number matched by name and input schema. */
export async function checkPublishedTools(t: Test, client: Client, pinned: readonly { name: string; inputSchema: unknown }[], label: string): Promise<number> {
  const { tools } = await client.listTools();
  t.ok(pinned.length > 0, `the pinned list of ${label} has ${pinned.length} tools`);
  const served = new Map(tools.map((tool) => [tool.name, tool]));
  const differ = pinned.filter((p) => !served.has(p.name) || !isDeepStrictEqual(served.get(p.name)!.inputSchema, p.inputSchema));
  t.same(
    differ.map((p) => p.name),
    [],
    'every published tool is served with its input schema',
  );
  t.same(
    tools.map((tool) => tool.name),
    pinned.map((p) => p.name),
    'no tool beyond the published list, in its order',
  );
  const matched = pinned.length - differ.length;
  t.comment(`${label}: ${matched}/${pinned.length} tools match by name and input schema`);
  return matched;
}
