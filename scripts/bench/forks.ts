// Forking a repository of FILES files (default 1,000 × 10 KB, pushed with Debian's git) on the
// GitHub twin through the gateway, side by side in one run: `POST …/forks` (objects shared in one
// INSERT … SELECT) against creating an empty repository, a cross-repository pull request (the
// fork's objects shared into the base again) against a same-repository one, and `git clone` of
// the fork against a clone of the parent.
//   node --import=tsx scripts/bench/forks.ts [files] [bytes per file] [runs]

import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import { startTwinBehindGateway } from '../../test/helpers/gateway-twin.js';

const FILES = Math.min(100_000, Number(process.argv[2] ?? 1000));
const BYTES = Math.min(10_000_000, Number(process.argv[3] ?? 10_240));
const RUNS = Math.min(20, Number(process.argv[4] ?? 5));

const run = promisify(execFile);
const env = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const git = (args: string[], cwd?: string) => run('git', args, { cwd, env, maxBuffer: 1 << 26 });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = async (f: () => Promise<unknown>): Promise<number> => {
  const s = performance.now();
  await f();
  return performance.now() - s;
};

const work = mkdtempSync(join(tmpdir(), 'twins-fork-bench-'));
const gw = await startTwinBehindGateway('github');
try {
  const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
  const org = 'octo-org';
  const me = (await octokit.users.getAuthenticated()).data.login;
  const cred = (full: string) => `${gw.url.replace('://', `://x-access-token:${gw.apiKey}@`)}/${full}.git`;
  const src = join(work, 'src');
  mkdirSync(src);
  await git(['init', '-q', '-b', 'main'], src);
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(src, `dir${i % 20}`), { recursive: true });
    writeFileSync(join(src, `dir${i % 20}`, `file${i}.bin`), randomBytes(BYTES));
  }
  await git(['add', '.'], src);
  await git(['commit', '-qm', 'Big repository'], src);

  const results: Record<string, number[]> = {};
  const note = (k: string, ms: number) => (results[k] ??= []).push(ms);
  for (let r = 0; r < RUNS; r++) {
    const name = `big${r}`;
    await octokit.repos.createInOrg({ org, name });
    await git(['push', '-q', cred(`${org}/${name}`), 'main', 'main:topic'], src);
    note('create an empty repository', await time(() => octokit.repos.createForAuthenticatedUser({ name: `empty${r}` })));
    note('fork (POST …/forks)', await time(() => octokit.repos.createFork({ owner: org, repo: name })));
    await octokit.repos.createOrUpdateFileContents({
      owner: me,
      repo: name,
      path: 'fork.txt',
      branch: 'topic',
      message: 'fork',
      content: Buffer.from('x').toString('base64'),
    });
    await octokit.repos.createOrUpdateFileContents({
      owner: org,
      repo: name,
      path: 'same.txt',
      branch: 'topic',
      message: 'same',
      content: Buffer.from('x').toString('base64'),
    });
    note('same-repository pull request', await time(() => octokit.pulls.create({ owner: org, repo: name, title: 's', head: 'topic', base: 'main' })));
    note('cross-repository pull request', await time(() => octokit.pulls.create({ owner: org, repo: name, title: 'c', head: `${me}:topic`, base: 'main' })));
    for (const [label, full] of [
      ['clone the parent', `${org}/${name}`],
      ['clone the fork', `${me}/${name}`],
    ] as const) {
      const dest = join(work, `clone-${r}-${label.replace(/\W/g, '')}`);
      note(label, await time(() => git(['clone', '-q', cred(full), dest])));
      rmSync(dest, { recursive: true, force: true });
    }
  }
  console.log(`repository: ${FILES} files × ${BYTES} B = ${((FILES * BYTES) / 1e6).toFixed(1)} MB; ${RUNS} runs, medians:`);
  const pairs: [string, string][] = [
    ['fork (POST …/forks)', 'create an empty repository'],
    ['cross-repository pull request', 'same-repository pull request'],
    ['clone the fork', 'clone the parent'],
  ];
  for (const [a, b] of pairs) {
    const ma = median(results[a]!);
    const mb = median(results[b]!);
    console.log(`${a.padEnd(32)} ${ma.toFixed(0).padStart(6)} ms   ${b.padEnd(28)} ${mb.toFixed(0).padStart(6)} ms   ×${(ma / mb).toFixed(2)}`);
  }
} finally {
  await gw.close();
  rmSync(work, { recursive: true, force: true });
}
