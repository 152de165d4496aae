// Debian's `git` for tests that drive the real client: found on PATH, else installed with apt-get
// (as root, where apt is there). When neither works the caller skips with the reason given.
// `git()` runs the client asynchronously (a twin served from the same process must keep answering).

import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

let checked: { ok: true } | { ok: false; reason: string } | undefined;

function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `{ok: true}` when `git` runs here (installing Debian's package if needed), else why not. */
export function ensureGit(): { ok: true } | { ok: false; reason: string } {
  if (checked) return checked;
  if (hasGit()) return (checked = { ok: true });
  if (process.getuid?.() !== 0) return (checked = { ok: false, reason: 'git is not installed and apt-get needs root' });
  try {
    execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'git'], {
      stdio: 'ignore',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (e) {
    return (checked = { ok: false, reason: `git is not installed and apt-get failed: ${(e as Error).message.split('\n')[0]}` });
  }
  return (checked = hasGit() ? { ok: true } : { ok: false, reason: 'git still missing after apt-get install' });
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run git; never throws on a non-zero exit (the result says how it went). */
export async function git(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<GitResult> {
  const env = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Ada Lovelace',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    ...opts.env,
  };
  try {
    const { stdout, stderr } = await run('git', args, { cwd: opts.cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

/** Like `git` but throws with git's stderr on failure. */
export async function gitOk(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const r = await git(args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}
