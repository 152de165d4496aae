// What a twin's MCP tool call costs over the REST call it stands for (issue 39), side by side in one
// run: a GitHub twin in this process, `create_issue` / `issue_read` through the twin's /mcp with the
// MCP SDK's Client (streamable HTTP, one JSON-RPC request per call, the tool then makes its REST
// request over HTTP at the twin's base URL), against the same REST calls with fetch. Alternating
// rounds, p50 / p90 wall time and this process's CPU time per call (client and twin both run here).
//   node --import=tsx scripts/bench/mcp-tools.ts [calls=300]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

const N = Math.max(20, Math.min(5000, Number(process.argv[2] ?? 300)));
const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
const server = new TwinServer(await loadTwin('github'), { dataFile: join(dir, 'github.sqlite'), clockStart: new Date('2026-01-05T10:00:00Z') });
const url = await server.listen(0, '127.0.0.1');
const auth = { authorization: `Bearer ${server.apiKey}` };

const rest = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: { ...auth, accept: 'application/vnd.github+json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const out = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
  return out as { number: number };
};
await rest('POST', '/user/repos', { name: 'bench', auto_init: true });

const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: auth } }));
const tool = async (name: string, args: Record<string, unknown>) => {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return JSON.parse((r.content[0] as { text: string }).text) as { number: number };
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Series {
  wall: number[];
  cpu: number;
}
const series = (): Series => ({ wall: [], cpu: 0 });
const results: Record<string, Series> = { 'REST create': series(), 'MCP create_issue': series(), 'REST get': series(), 'MCP issue_read': series() };

async function timed(name: string, fn: () => Promise<unknown>): Promise<void> {
  const c0 = cpuMs();
  const t0 = performance.now();
  await fn();
  results[name]!.wall.push(performance.now() - t0);
  results[name]!.cpu += cpuMs() - c0;
}

const repo = { owner: 'octocat', repo: 'bench' };
// Warm both paths (JIT, connections, statement caches).
for (let i = 0; i < 20; i++) {
  await rest('POST', '/repos/octocat/bench/issues', { title: `warm ${i}` });
  await tool('create_issue', { ...repo, title: `warm ${i}` });
}
for (let i = 0; i < N; i++) {
  // Alternate which goes first, so neither always meets a warmer cache.
  const pair = [
    () => timed('REST create', () => rest('POST', '/repos/octocat/bench/issues', { title: `rest ${i}`, body: 'b' })),
    () => timed('MCP create_issue', () => tool('create_issue', { ...repo, title: `mcp ${i}`, body: 'b' })),
  ];
  for (const run of i % 2 ? pair.reverse() : pair) await run();
  const reads = [
    () => timed('REST get', () => rest('GET', `/repos/octocat/bench/issues/${(i % 20) + 1}`)),
    () => timed('MCP issue_read', () => tool('issue_read', { ...repo, method: 'get', issue_number: (i % 20) + 1 })),
  ];
  for (const run of i % 2 ? reads.reverse() : reads) await run();
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const row = (name: string) => {
  const s = results[name]!;
  return { name, p50: pct(s.wall, 50), p90: pct(s.wall, 90), cpu: s.cpu / s.wall.length };
};
console.log(`GitHub twin, ${N} calls each, in-process (client and twin in one process, loopback HTTP)`);
console.log('call                 p50 ms   p90 ms   CPU ms/call');
for (const [restName, mcpName] of [
  ['REST create', 'MCP create_issue'],
  ['REST get', 'MCP issue_read'],
]) {
  const a = row(restName!);
  const b = row(mcpName!);
  for (const r of [a, b])
    console.log(`${r.name.padEnd(20)} ${r.p50.toFixed(2).padStart(6)}   ${r.p90.toFixed(2).padStart(6)}   ${r.cpu.toFixed(2).padStart(6)}`);
  console.log(`  added by MCP: p50 +${(b.p50 - a.p50).toFixed(2)} ms (×${(b.p50 / a.p50).toFixed(2)}), CPU +${(b.cpu - a.cpu).toFixed(2)} ms/call`);
}

await client.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
