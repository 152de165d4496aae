// Twin child processes run the compiled runtime (no tsx in children): compile twin-runtime/,
// twins/ and what they import (seeds/), and control-plane/ (tests that run `twins serve` as its own
// process), into dist/ when dist is missing or older than their sources. `make test` builds everything
// with tsc first; here esbuild transpiles just those folders (file by file, same layout as tsc)
// so a test run does not wait for a whole-tree type check. A lock directory keeps parallel test
// files from building at the same time.

import { buildSync } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = join(ROOT, 'dist', 'twin-runtime', 'main.js');
const SOURCES = ['twin-runtime', 'twins', 'seeds', 'control-plane'];

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** JSON files the code imports (generated spec tables): tsc copies them into dist/, so do we. */
function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return jsonFiles(p);
    return e.name.endsWith('.json') ? [p] : [];
  });
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `make build` stamps dist/.built after `tsc -b`, which rewrites only the files that changed. */
const STAMP = join(ROOT, 'dist', '.built');

function stale(): boolean {
  if (!existsSync(ENTRY)) return true;
  const built = Math.max(statSync(ENTRY).mtimeMs, existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0);
  return SOURCES.some((d) => newestMtime(join(ROOT, d)) > built);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function ensureBuilt(): void {
  if (!stale()) return;
  const lock = join(ROOT, 'dist', '.build-lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 1200) throw new Error('timed out waiting for another test to build dist/');
      sleep(100);
      if (!stale()) return;
    }
  }
  try {
    if (!stale()) return;
    const sources = SOURCES.flatMap((d) => tsFiles(join(ROOT, d)));
    buildSync({
      entryPoints: sources,
      outdir: join(ROOT, 'dist'),
      outbase: ROOT,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      sourcemap: true,
      logLevel: 'error',
    });
    for (const file of ['twin-runtime', 'twins'].flatMap((d) => jsonFiles(join(ROOT, d)))) {
      const to = join(ROOT, 'dist', file.slice(ROOT.length));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
    }
    if (!existsSync(ENTRY)) throw new Error(`build did not produce ${ENTRY}`);
  } finally {
    rmdirSync(lock);
  }
}
