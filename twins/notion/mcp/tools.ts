// The tools of Notion's own MCP server (@notionhq/notion-mcp-server, pinned in spec/mcp-tools.json
// by scripts/gen/notion-mcp-tools.ts): each is generated from an operation of Notion's OpenAPI
// document, and the twin answers it as the server's HTTP client does, through the twin's own route
// for that operation, so a tool call and the SDK call leave the same state and request-log rows.

import type { TwinMcp } from '../../../twin-runtime/contract.js';
import { openApiToolAnswer, publishedTools, type McpToolAnswer, type OpenApiToolOperation, type PublishedTool } from '../../../twin-runtime/mcp.js';
import published from '../spec/mcp-tools.json' with { type: 'json' };

const tools = published.tools as unknown as (PublishedTool & { operation: OpenApiToolOperation | null })[];

const answers: Record<string, McpToolAnswer> = Object.fromEntries(tools.filter((t) => t.operation).map((t) => [t.name, openApiToolAnswer(t.operation!)]));

export const notionMcp: TwinMcp = {
  server: { name: published.package, version: published.version, source: `${published.source} (server ${published.server.name} ${published.server.version})` },
  implementation: published.server,
  validatesInput: false,
  tools: publishedTools(tools, answers),
};
