// Shared steps of the suites that need a real Docker engine: whether one is reachable (the suites
// skip, saying so, when not) and building an image with the project's own build script.

import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
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
  execFileSync(join(root, 'scripts/image/build.sh'), [tag, target], { cwd: root, stdio: 'pipe', timeout: 300_000 });
}
