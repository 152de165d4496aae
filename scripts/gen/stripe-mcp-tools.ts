// The tool set of Stripe's MCP server as the agent toolkit behind `@stripe/mcp` defines it, pinned as
// data: @stripe/agent-toolkit's StripeAgentToolkit (an McpServer) is started with every action
// allowed and asked for its tools over the MCP SDK's in-memory transport, so names, descriptions,
// annotations and JSON input schemas are exactly what an MCP client of that server lists. Never
// edited by hand. 0.7.12 is the last release that defines its tools itself (0.9 forwards to the
// hosted mcp.stripe.com); it is not a dependency of this package because its peer dependencies
// (openai ^4, ai ^4, @langchain/core, agents) conflict with ours, so it is installed apart:
//
//   npm install --prefix <dir> --ignore-scripts --legacy-peer-deps @stripe/agent-toolkit@0.7.12 @modelcontextprotocol/sdk@1.32.2
//   node --import=tsx scripts/gen/stripe-mcp-tools.ts <dir>
//
// → twins/stripe/spec/mcp-tools.json

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const OUT = fileURLToPath(new URL('../../twins/stripe/spec/mcp-tools.json', import.meta.url));

interface Listed {
  name: string;
  description?: string;
  annotations?: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
}

/** Every resource and permission allowed: `configuration.actions[resource][permission] === true` for any. */
const everyAction = new Proxy({}, { get: () => new Proxy({}, { get: () => true }) });

async function main(): Promise<void> {
  const [dir] = process.argv.slice(2);
  if (!dir) throw new Error('usage: scripts/gen/stripe-mcp-tools.ts <dir with @stripe/agent-toolkit installed>');
  const modules = join(dir, 'node_modules');
  const pkg = JSON.parse(readFileSync(join(modules, '@stripe/agent-toolkit/package.json'), 'utf8')) as { version: string };
  const load = (path: string) => import(pathToFileURL(join(modules, path)).href);
  const { StripeAgentToolkit } = await load('@stripe/agent-toolkit/modelcontextprotocol/index.mjs');
  const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
  const { InMemoryTransport } = await load('@modelcontextprotocol/sdk/dist/esm/inMemory.js');
  // The key is never used: listing tools makes no Stripe request.
  const server = new StripeAgentToolkit({ secretKey: 'sk_test_listing_only', configuration: { actions: everyAction } });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'twins-gen', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const { tools } = (await client.listTools()) as { tools: Listed[] };
  const info = client.getServerVersion() as { name: string; version: string };
  await client.close();
  const out = {
    source: 'https://www.npmjs.com/package/@stripe/agent-toolkit',
    package: '@stripe/agent-toolkit',
    version: pkg.version,
    server: info,
    tools: tools.map((t) => ({ name: t.name, description: t.description ?? '', annotations: t.annotations ?? {}, inputSchema: t.inputSchema })),
  };
  writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
  console.log(`${OUT}: ${tools.length} tools from @stripe/agent-toolkit ${pkg.version} (server ${info.name} ${info.version})`);
}

await main();
