// Build the web console: esbuild bundles control-plane/console/web (Preact, TSX, one stylesheet)
// into content-hashed files (the entry, the chunks it shares with the pages, one chunk per page loaded
// by import()), writes index.html naming them, and stores a gzip and a brotli copy of
// each file beside it so the control plane serves them without compressing per request.
// Output: dist/control-plane/console/web/ (what the control plane and its image serve).
// Run: `node --import=tsx scripts/console/build.ts` (make build and npm run build do).

import { build } from 'esbuild';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONSOLE_SOURCE = join(ROOT, 'control-plane', 'console', 'web');
export const CONSOLE_OUT = join(ROOT, 'dist', 'control-plane', 'console', 'web');
/** Files outside the console's folder it bundles (the SDK snippet renderer it shares with the CLI). */
export const CONSOLE_SHARED = [join(ROOT, 'control-plane', 'client', 'sdk-snippets.ts')];

export interface BuiltFile {
  name: string;
  bytes: number;
  gzip: number;
  brotli: number;
  /** Loaded before the first page runs (index.html, the entry, its static chunks, the stylesheet); else a page's chunk loaded when shown. */
  firstVisit: boolean;
}

export interface ConsoleBuild {
  outDir: string;
  files: BuiltFile[];
  /** Sum over every file a first visit loads before its first page runs (gzip). */
  firstVisitGzip: number;
  /** Sum over every file, the pages' chunks included (a first visit fetches them too, once idle). */
  totalGzip: number;
}

function sourcesNewerThan(dir: string, when: number): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory() ? sourcesNewerThan(p, when) : statSync(p).mtimeMs > when) return true;
  }
  return false;
}

/** Whether the built console is missing or older than its sources (or this script, or preact). */
export function consoleStale(outDir = CONSOLE_OUT): boolean {
  const index = join(outDir, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return (
    sourcesNewerThan(CONSOLE_SOURCE, built) ||
    CONSOLE_SHARED.some((f) => statSync(f).mtimeMs > built) ||
    statSync(fileURLToPath(import.meta.url)).mtimeMs > built
  );
}

export async function buildConsole(outDir = CONSOLE_OUT): Promise<ConsoleBuild> {
  // Built next to the final folder and swapped in whole, so a server reading it never sees half a build.
  const staging = `${outDir}.staging-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    const result = await build({
      entryPoints: { app: join(CONSOLE_SOURCE, 'main.tsx') },
      bundle: true,
      format: 'esm',
      splitting: true,
      target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
      minify: true,
      legalComments: 'none',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      entryNames: '[name]-[hash]',
      chunkNames: '[name]-[hash]',
      outdir: staging,
      metafile: true,
      logLevel: 'error',
      tsconfig: join(CONSOLE_SOURCE, 'tsconfig.json'),
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    // The entry, the chunks it imports statically (the first visit needs them before the page can
    // run: named in index.html as modulepreload, and so in the server's Link header), and the pages'
    // chunks loaded by import() later.
    const outputs = result.metafile.outputs;
    const fileName = (p: string) => p.split('/').pop()!;
    const entryPath = Object.keys(outputs).find((p) => outputs[p]!.entryPoint && p.endsWith('.js'));
    const css = Object.keys(outputs).find((p) => p.endsWith('.css'));
    if (!entryPath || !css) throw new Error(`the console build produced ${Object.keys(outputs).join(', ')}; expected an entry .js and a .css`);
    const firstVisit = new Set<string>();
    const visit = (p: string) => {
      if (firstVisit.has(p)) return;
      firstVisit.add(p);
      for (const i of outputs[p]!.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
    };
    visit(entryPath);
    const staticChunks = [...firstVisit].filter((p) => p !== entryPath).map(fileName);
    const html = readFileSync(join(CONSOLE_SOURCE, 'index.html'), 'utf8')
      .replace('{{js}}', fileName(entryPath))
      .replace('{{css}}', fileName(css))
      .replace('{{modulepreload}}', staticChunks.map((f) => `<link rel="modulepreload" href="/console/${f}">`).join('\n'));
    writeFileSync(join(staging, 'index.html'), html);
    const files: BuiltFile[] = [];
    const names = [
      'index.html',
      fileName(entryPath),
      ...staticChunks,
      fileName(css),
      ...Object.keys(outputs)
        .filter((p) => !firstVisit.has(p) && p !== css)
        .map(fileName),
    ];
    const firstVisitNames = new Set(['index.html', fileName(entryPath), ...staticChunks, fileName(css)]);
    for (const name of names) {
      const body = readFileSync(join(staging, name));
      const gz = gzipSync(body, { level: 9 });
      const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
      writeFileSync(join(staging, `${name}.gz`), gz);
      writeFileSync(join(staging, `${name}.br`), br);
      files.push({ name, bytes: body.length, gzip: gz.length, brotli: br.length, firstVisit: firstVisitNames.has(name) });
    }
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
    return {
      outDir,
      files,
      firstVisitGzip: files.filter((f) => f.firstVisit).reduce((n, f) => n + f.gzip, 0),
      totalGzip: files.reduce((n, f) => n + f.gzip, 0),
    };
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildConsole();
  for (const f of out.files)
    console.log(
      `${f.name.padEnd(28)} ${String(f.bytes).padStart(7)} B  gzip ${String(f.gzip).padStart(6)} B  br ${String(f.brotli).padStart(6)} B${f.firstVisit ? '  (first visit)' : ''}`,
    );
  console.log(
    `console: ${out.files.length} files, ${(out.firstVisitGzip / 1024).toFixed(1)} kB gzipped before the first page runs, ${(out.totalGzip / 1024).toFixed(1)} kB in total → ${out.outDir}`,
  );
}
