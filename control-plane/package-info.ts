// The package's root folder and version, found from this file wherever it runs (the TypeScript
// sources under tsx, or the compiled copy in dist/), without importing anything heavy.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    // `twins` in a clone; `twins-<image>` where scripts/image/stage-app.mjs staged an image.
    if (existsSync(file) && /^twins(-|$)/.test((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name ?? '')) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`No twins package.json above ${import.meta.dirname}.`);
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
