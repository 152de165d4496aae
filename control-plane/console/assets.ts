// The built console (scripts/console/build.ts) held in memory: a handful of files, each with its
// gzip and brotli copies, served by exact name only (no path from a request ever reaches the file
// system). Hashed files are immutable; index.html is revalidated.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  name: string;
  type: string;
  body: Buffer;
  gzip?: Buffer;
  brotli?: Buffer;
  etag: string;
  /** Content-hashed names never change: cache them for a year. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Where the build puts the console: beside this module once compiled, under dist/ when run from source. */
export function defaultConsoleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = basename(dirname(dirname(here))) === 'dist';
  return compiled ? join(here, 'web') : join(here, '..', '..', 'dist', 'control-plane', 'console', 'web');
}

export class ConsoleAssets {
  private constructor(
    readonly dir: string,
    private readonly files: Map<string, ConsoleAsset>,
  ) {}

  /** The built console in `dir`, or undefined when it has not been built. */
  static load(dir: string): ConsoleAssets | undefined {
    if (!existsSync(join(dir, 'index.html'))) return undefined;
    const files = new Map<string, ConsoleAsset>();
    for (const name of readdirSync(dir)) {
      const ext = /\.[a-z]+$/.exec(name)?.[0] ?? '';
      const type = TYPES[ext];
      if (!type) continue; // .gz / .br copies are read with their file
      const body = readFileSync(join(dir, name));
      const read = (suffix: string) => (existsSync(join(dir, name + suffix)) ? readFileSync(join(dir, name + suffix)) : undefined);
      files.set(name, {
        name,
        type,
        body,
        gzip: read('.gz'),
        brotli: read('.br'),
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        immutable: name !== 'index.html',
      });
    }
    return new ConsoleAssets(dir, files);
  }

  get index(): ConsoleAsset {
    return this.files.get('index.html')!;
  }

  /**
   * A `Link` header naming what the page loads before it runs (its stylesheet, its entry script and
   * the chunks that script imports, as index.html names them), so the browser fetches them all at
   * once, before it has parsed the page; the chunk of later pages (loaded by import()) is not named.
   * Scripts are named `preload; as=script; crossorigin` (a module's fetch mode, so the module reuses
   * the preload): Chromium ignores `rel=modulepreload` in a header and would wait for the parser.
   */
  get preload(): string {
    return (this.links ??= this.preloadLinks());
  }

  private links?: string;

  private preloadLinks(): string {
    const links: string[] = [];
    for (const [tag] of this.index.body.toString('utf8').matchAll(/<(?:link|script)\b[^>]*>/g)) {
      const file = /(?:href|src)="\/console\/([^"/]+)"/.exec(tag)?.[1];
      if (!file || !this.files.has(file)) continue;
      if (/rel="stylesheet"/.test(tag)) links.push(`</console/${file}>; rel=preload; as=style`);
      else if (/type="module"|rel="modulepreload"/.test(tag)) links.push(`</console/${file}>; rel=preload; as=script; crossorigin`);
    }
    return links.join(', ');
  }

  get(name: string): ConsoleAsset | undefined {
    return name === 'index.html' ? undefined : this.files.get(name);
  }

  /** Every file of the console (the pages' chunks included), and their sizes as sent gzipped. */
  get sizes(): { name: string; bytes: number; gzip: number }[] {
    return [...this.files.values()].map((f) => ({ name: f.name, bytes: f.body.length, gzip: f.gzip?.length ?? f.body.length }));
  }
}

/** Pick the smallest encoding the client accepts: br, then gzip, else identity. */
export function negotiate(asset: ConsoleAsset, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((p) => p.trim().split(';'))
      .filter(([, q]) => !q || !/^q=0(\.0*)?$/.test(q.trim()))
      .map(([name]) => name!.trim().toLowerCase()),
  );
  if (asset.brotli && accepted.has('br')) return { body: asset.brotli, encoding: 'br' };
  if (asset.gzip && accepted.has('gzip')) return { body: asset.gzip, encoding: 'gzip' };
  return { body: asset.body };
}
