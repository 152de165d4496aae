// Shared steps of the suites that need a real Docker engine: whether one is reachable (the suites
// skip, saying so, when not) and building an image with the project's own build script.

import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

export async function engineReachable(): Promise<boolean> {
  try {
    await new Docker().ping();
    return true;
  } catch {
    return false;
  }
}

/** `scripts/image/build.sh <tag> <target>`, as `make image` runs it. */
export function buildImage(tag: string, target: 'twin-runtime' | 'control-plane'): void {
  // Staging copies the production node_modules: 9 minutes of disk on a busy 2-core machine.
  execFileSync(join(root, 'scripts/image/build.sh'), [tag, target], { cwd: root, stdio: 'pipe', timeout: 900_000 });
}

/** A loopback port free a moment ago (host networking: the container binds it itself). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
