// The control plane as its own process (`twins serve` from dist/, compiled by ensureBuilt: loading
// it under tsx took most of a minute on a busy machine), for tests that kill or stop it:
// it prints its URL in its first log line; tokens come from the local identity provider's key in
// the data directory.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { ensureBuilt } from '../orchestration/build.js';
import { seedTestTls } from './tls-template.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'control-plane', 'cli', 'index.js');

export interface ControlPlaneProcess {
  child: ChildProcess;
  url: string;
  dataDir: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  token(): Promise<string>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export async function startControlPlaneProcess(dataDir: string, env: Record<string, string> = {}): Promise<ControlPlaneProcess> {
  ensureBuilt();
  seedTestTls(dataDir);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      TWINS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TWINS_DEFAULT_PLAN: 'paygo',
      TWINS_PAYMENT_PROCESSOR: 'none',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the control plane did not start: ${stderr}`)), 120_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { url?: string };
        if (msg.url) {
          clearTimeout(timer);
          resolve(msg.url);
        }
      } catch {
        // not a JSON log line
      }
    });
    void exited.then(({ code }) => reject(new Error(`the control plane exited (${code}): ${stderr}`)));
  });
  let token: string | undefined;
  const cpp: ControlPlaneProcess = {
    child,
    url,
    dataDir,
    exited,
    async token() {
      token ??= await mintLocalToken(await loadLocalKeys(dataDir), { email: 'ada@example.com', org: 'acme', role: 'admin' });
      return token;
    },
    async call(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${await cpp.token()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
  };
  return cpp;
}
