// Code search over a 1,000-file repository (issue 35): the repository is built through the Git Data
// API (one tree of 1,000 files given inline, a commit, the branch moved to it), then
// `GET /search/code?q=needle repo:…` is asked N times in turn; p50/p99 of the answer and the
// process's CPU per query (from /proc, steadier than wall time on a busy machine).
//   node --import=tsx scripts/bench/github-code-search.ts [files=1000] [queries=50]
// Loopback only: the twin runs in this process.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { percentile } from './control-plane.js';

const FILES = Number(process.argv[2] ?? 1000);
const QUERIES = Number(process.argv[3] ?? 50);

function cpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-code-search-'));
const server = new TwinServer(await loadTwin('github'), { dataFile: join(dir, 'github.sqlite') });
const url = await server.listen(0, '127.0.0.1');
try {
  const octokit = new Octokit({ auth: server.apiKey, baseUrl: url.replace(/\/$/, '') });
  const owner = 'octocat';
  const repo = 'big';
  await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
  const base = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
  const line = 'const value = compute(input, options); // some ordinary code on an ordinary line\n';
  const tree = Array.from({ length: FILES }, (_, i) => ({
    path: `src/module${Math.floor(i / 50)}/file${i}.ts`,
    mode: '100644' as const,
    type: 'blob' as const,
    // About 4 KB each; every 100th file holds the word searched for.
    content: line.repeat(50) + (i % 100 === 7 ? 'export const needle = true;\n' : ''),
  }));
  const baseTree = (await octokit.git.getCommit({ owner, repo, commit_sha: base })).data.tree.sha;
  const made = await octokit.git.createTree({ owner, repo, tree, base_tree: baseTree });
  const commit = await octokit.git.createCommit({ owner, repo, message: `${FILES} files`, tree: made.data.sha, parents: [base] });
  await octokit.git.updateRef({ owner, repo, ref: 'heads/main', sha: commit.data.sha });

  const times: number[] = [];
  let found = 0;
  const cpu0 = cpuMs();
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now();
    const res = await octokit.search.code({ q: `needle repo:${owner}/${repo}` });
    times.push(performance.now() - t0);
    found = res.data.total_count;
  }
  const cpuPerQuery = (cpuMs() - cpu0) / QUERIES;
  const expected = Math.ceil((FILES - 7) / 100);
  if (found !== expected) throw new Error(`found ${found} files, expected ${expected}`);
  console.log(
    JSON.stringify({
      bench: 'GitHub code search over one repository',
      files: FILES,
      queries: QUERIES,
      found,
      p50_ms: +percentile(times, 50).toFixed(1),
      p99_ms: +percentile(times, 99).toFixed(1),
      cpu_ms_per_query: +cpuPerQuery.toFixed(1),
    }),
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
