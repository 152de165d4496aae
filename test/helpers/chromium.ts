// A real Chromium for browser tests: Debian's `chromium` driven by playwright-core. Where the
// binary is missing and this process is root on a machine with apt, it is installed first (so CI
// on a clean clone gets it); where it still cannot start, the caller skips with the reason.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CANDIDATES = [process.env.TWINS_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

/** The flags every browser test runs Chromium with: nothing reaches out to the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-features=Translate,OptimizationHints,MediaRouter',
];

function found(): string | undefined {
  return CANDIDATES.find((p) => existsSync(p));
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Install Debian's chromium when root with apt (one installer at a time across test processes). */
function install(): string | undefined {
  if (process.getuid?.() !== 0) return 'chromium is not installed and this user cannot install it (not root)';
  if (spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status !== 0) return 'chromium is not installed and there is no apt-get to install it';
  const lock = join(tmpdir(), 'twins-chromium-install.lock');
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (found()) return undefined;
      if (i > 3000) return 'timed out waiting for another test to install chromium';
      sleep(200);
    }
  }
  try {
    if (found()) return undefined;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env, stdio: 'ignore', timeout: 600_000 });
    return found() ? undefined : 'apt-get installed chromium but no binary was found';
  } catch (e) {
    return `installing chromium failed: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    rmdirSync(lock);
  }
}

export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launch Chromium with a fresh profile, or say why it cannot run here. */
export async function launchChromium(opts: { viewport?: { width: number; height: number } } = {}): Promise<LaunchedChromium | { skip: string }> {
  let executablePath = found();
  if (!executablePath) {
    const why = install();
    if (why) return { skip: why };
    executablePath = found()!;
  }
  const profile = mkdtempSync(join(tmpdir(), 'twins-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      chromiumSandbox: false,
      args: CHROMIUM_ARGS,
      viewport: opts.viewport ?? { width: 1280, height: 900 },
      timeout: 60_000,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => {});
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    return { skip: `chromium could not start: ${(e as Error).message.split('\n')[0]}` };
  }
}
