// The tool set of Notion's own MCP server (@notionhq/notion-mcp-server), pinned as data: the
// server's published CLI is started over stdio and asked for its tools with the MCP SDK's Client,
// so names, descriptions, annotations and JSON input schemas are exactly what its clients list; each
// tool is generated from an operation of the OpenAPI document the package ships
// (scripts/notion-openapi.json, tool `API-<operationId>`), recorded beside it (method, path, which
// arguments go to the path and the query, whether the rest is the JSON body, the headers the server
// sends from the operation's defaults) so the twin answers it as the server's HTTP client does.
// Never edited by hand:
//
//   npm pack @notionhq/notion-mcp-server@2.5.2 && tar xzf notionhq-notion-mcp-server-2.5.2.tgz
//   node --import=tsx scripts/gen/notion-mcp-tools.ts <extracted package dir>
//
// → twins/notion/spec/mcp-tools.json

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const OUT = fileURLToPath(new URL('../../twins/notion/spec/mcp-tools.json', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: { default?: unknown };
}

async function main(): Promise<void> {
  const [dir] = process.argv.slice(2);
  if (!dir) throw new Error('usage: scripts/gen/notion-mcp-tools.ts <@notionhq/notion-mcp-server package dir>');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
  const spec = JSON.parse(readFileSync(join(dir, 'scripts/notion-openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; parameters?: Parameter[]; requestBody?: unknown }>>;
    components?: { parameters?: Record<string, Parameter> };
  };
  const resolve = (p: Parameter): Parameter => (p.$ref ? (spec.components?.parameters?.[p.$ref.split('/').pop()!] ?? {}) : p);

  // The key is never used: listing tools makes no Notion request.
  const client = new Client({ name: 'twins-gen', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(dir, 'bin/cli.mjs')],
      env: { NOTION_TOKEN: 'ntn_listing_only', PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  const { tools } = await client.listTools();
  const info = client.getServerVersion()!;
  await client.close();

  const operations: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method) || !op.operationId) continue;
      const params = (op.parameters ?? []).map(resolve);
      const name = `API-${op.operationId}`.slice(0, 64);
      operations[name] = {
        method: method.toUpperCase(),
        path,
        path_params: params.filter((p) => p.in === 'path').map((p) => p.name),
        query_params: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody !== undefined,
        headers: Object.fromEntries(params.filter((p) => p.in === 'header' && p.schema?.default !== undefined).map((p) => [p.name, String(p.schema!.default)])),
      };
    }
  }
  const out = {
    source: 'https://www.npmjs.com/package/@notionhq/notion-mcp-server',
    package: pkg.name,
    version: pkg.version,
    server: info,
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      annotations: t.annotations ?? {},
      inputSchema: t.inputSchema,
      operation: operations[t.name] ?? null,
    })),
  };
  writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
  console.log(`${OUT}: ${tools.length} tools from ${pkg.name} ${pkg.version} (server ${info.name} ${info.version})`);
}

await main();
