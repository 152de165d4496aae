// The tool set of GitHub's own MCP server (github/github-mcp-server), pinned as data: every tool's
// name, description, annotations and JSON input schema exactly as the server's repository publishes
// them in its tool snapshots (pkg/github/__toolsnaps__/*.snap, which its CI checks against the
// server's code). Never edited by hand: regenerate from a clone of the repository at a release tag.
//
//   node --import=tsx scripts/gen/github-mcp-tools.ts <git dir of github-mcp-server> [tag]
//
// → twins/github/spec/mcp-tools.json

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SNAPSHOTS = 'pkg/github/__toolsnaps__';
const OUT = fileURLToPath(new URL('../../twins/github/spec/mcp-tools.json', import.meta.url));

interface Snapshot {
  name: string;
  description?: string;
  annotations?: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
}

function main(): void {
  const [gitDir, tag = 'v1.10.1'] = process.argv.slice(2);
  if (!gitDir) throw new Error('usage: scripts/gen/github-mcp-tools.ts <git dir of github-mcp-server> [tag]');
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const commit = git('rev-parse', `${tag}^{commit}`).trim();
  const files = git('ls-tree', '--name-only', commit, `${SNAPSHOTS}/`)
    .split('\n')
    .filter((f) => f.endsWith('.snap'));
  const byName = new Map<string, Snapshot>();
  for (const file of files) {
    const snap = JSON.parse(git('show', `${commit}:${file}`)) as Snapshot;
    // A feature-flagged variant (`issue_dependency_read_ff_…`) snapshots the same tool name again: the first file wins.
    if (!byName.has(snap.name)) byName.set(snap.name, snap);
  }
  const tools = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  const out = {
    source: 'https://github.com/github/github-mcp-server',
    version: tag,
    commit,
    path: join(SNAPSHOTS, '*.snap'),
    tools: tools.map((t) => ({ name: t.name, description: t.description ?? '', annotations: t.annotations ?? {}, inputSchema: t.inputSchema })),
  };
  writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
  console.log(`${OUT}: ${tools.length} tools from github-mcp-server ${tag} (${commit})`);
}

main();
