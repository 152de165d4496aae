// Run the `twins` command line in this process (runCli with a captured terminal), or as a real
// process: the compiled command in dist/ (ensureBuilt compiles it when older than its sources;
// started under tsx instead, each process spent about 2 s more CPU loading the CLI and the control
// plane through tsx).

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { runCli } from '../../control-plane/cli/main.js';
import type { CliIO } from '../../control-plane/cli/context.js';
import { ensureBuilt } from '../orchestration/build.js';

export const ROOT = join(import.meta.dirname, '../..');
export const CLI_SOURCE = join(ROOT, 'control-plane/cli/index.ts');
const CLI_BUILT = join(ROOT, 'dist/control-plane/cli/index.js');

/** The compiled `twins` command, built first when its sources are newer. */
export function builtCli(): string {
  ensureBuilt();
  return CLI_BUILT;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  cwd?: string;
  /** Resolves the command's stop signal (a long-running command ends when it settles). */
  stop?: Promise<string>;
  stderrIsTTY?: boolean;
  onStdout?: (text: string) => void;
}

export async function cli(argv: string[], o: RunOptions = {}): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (s) => {
      stdout += s;
      o.onStdout?.(s);
    },
    stderr: (s) => void (stderr += s),
    readStdin: async () => o.stdin ?? '',
    env: o.env ?? {},
    cwd: o.cwd ?? ROOT,
    stdoutIsTTY: false,
    stderrIsTTY: o.stderrIsTTY ?? false,
    stopped: o.stop ?? new Promise(() => {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** The real process (`node dist/control-plane/cli/index.js …`), to its exit. */
export function cliProcess(argv: string[], env: NodeJS.ProcessEnv = {}, timeout = 90_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [builtCli(), ...argv], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** A long-running `twins` process; resolves with it once `ready` matches its stdout. */
export function startProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeout = 90_000,
): Promise<{ child: ChildProcess; stdout: () => string; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli(), ...argv], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no ${ready} within ${timeout} ms: ${out} ${err}`))), timeout);
    child.stderr!.on('data', (c: Buffer) => (err += c));
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, stdout: () => out, match: m });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ${ready}: ${out} ${err}`));
    });
  });
}

/** Stop a started process with SIGTERM and wait for its exit code. */
export function stopProcess(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
