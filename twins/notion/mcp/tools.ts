// The tools of Notion's own MCP server (@notionhq/notion-mcp-server, pinned in spec/mcp-tools.json
// by scripts/gen/notion-mcp-tools.ts): each is generated from an operation of Notion's OpenAPI
// document, and the twin answers it as the server's HTTP client does, through the twin's own route
// for that operation, so a tool call and the SDK call leave the same state and request-log rows.

import type { TwinMcp } from '../../../twin-runtime/contract.js';
import {
  lazyMcp,
  openApiToolAnswer,
  publishedTools,
  readPinnedTools,
  type McpToolAnswer,
  type OpenApiToolOperation,
  type PublishedTool,
} from '../../../twin-runtime/mcp.js';

type NotionTool = PublishedTool & { operation: OpenApiToolOperation | null };

export const notionMcp: TwinMcp = lazyMcp(() => {
  const published = readPinnedTools<{ source: string; package: string; version: string; server: { name: string; version: string }; tools: NotionTool[] }>(
    new URL('../spec/mcp-tools.json', import.meta.url),
  );
  const answers: Record<string, McpToolAnswer> = Object.fromEntries(
    published.tools.filter((t) => t.operation).map((t) => [t.name, openApiToolAnswer(t.operation!)]),
  );
  return {
    server: {
      name: published.package,
      version: published.version,
      source: `${published.source} (server ${published.server.name} ${published.server.version})`,
    },
    implementation: published.server,
    validatesInput: false,
    tools: publishedTools(published.tools, answers),
  };
});
