// Stage what an image needs into build/image/<target>/app: the compiled code it runs and only the
// production packages that code imports (with their dependency closure), not dev tooling.
//   twin-runtime (default): the runtime and every twin;
//   control-plane: the control plane and the `twins` command, plus the runtime and twins it starts
//   itself under the process driver.
//
//   node scripts/image/stage-app.mjs [twin-runtime|control-plane] [context dir]
// The context dir (default build/image/<target>) receives app/; build.sh gives each build its own,
// so two builds of one image running at once (parallel test files) never rewrite each other's.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = process.argv[2] ?? 'twin-runtime';
const DIST = {
  // The twins import their seed vocabulary from seeds/, so it ships too.
  'twin-runtime': ['twin-runtime', 'twins', 'seeds'],
  'control-plane': ['control-plane', 'twin-runtime', 'twins', 'seeds'],
}[target];
if (!DIST) throw new Error(`unknown image target '${target}' (twin-runtime or control-plane)`);
const out = join(process.argv[3] ?? join(root, 'build', 'image', target), 'app');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'dist'), { recursive: true });
for (const dir of DIST) {
  const from = join(root, 'dist', dir);
  if (!existsSync(from)) throw new Error(`dist/${dir} is missing: run the build first`);
  cpSync(from, join(out, 'dist', dir), { recursive: true, filter: (p) => !p.endsWith('.map') && !p.endsWith('.d.ts') });
}

// Each twin's generated spec artefacts (operation table, schema pieces) are read at run time next
// to its compiled code (dist/twins/<slug>/spec/); tsc does not copy them.
for (const slug of readdirSync(join(root, 'twins'))) {
  const spec = join(root, 'twins', slug, 'spec');
  if (existsSync(join(spec, 'operations.json'))) cpSync(spec, join(out, 'dist', 'twins', slug, 'spec'), { recursive: true });
}

if (target === 'control-plane') cpSync(join(root, 'bin'), join(out, 'bin'), { recursive: true });

const UNUSED_FILE = /\.([cm]?ts|map|md|markdown)$/i;
const seen = new Set();
function include(name) {
  if (seen.has(name)) return;
  seen.add(name);
  const dir = join(root, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  // A package's own tests and docs are not needed at run time, nor are a native addon's sources and
  // build intermediates; everything else is (`src/` is where many plain packages keep their code).
  const native = existsSync(join(dir, 'binding.gyp'));
  const skip = native ? /^[\\/](deps|src|test|docs)([\\/]|$)|[\\/]obj\.target([\\/]|$)/ : /^[\\/](test|docs)([\\/]|$)/;
  // Nor are type definitions, TypeScript sources, source maps and Markdown (Node runs none of them
  // from node_modules), nor prebuilt addons for other operating systems than the image's Linux.
  const unused = (p) => UNUSED_FILE.test(p) || (/[\\/]prebuilds[\\/]/.test(p) && !/[\\/]prebuilds[\\/](linux-)/.test(p));
  cpSync(dir, join(out, 'node_modules', name), { recursive: true, filter: (p) => !skip.test(p.slice(dir.length)) && !unused(p.slice(dir.length)) });
  // A dependency npm nested inside the package is copied with it (includeNested sees to its own).
  for (const dep of Object.keys(pkg.dependencies ?? {})) if (!existsSync(join(dir, 'node_modules', dep, 'package.json'))) include(dep);
  includeNested(dir, [dir]);
}

/**
 * Packages npm could not hoist live in a package's own node_modules and are copied with it; what
 * they depend on resolves up the tree, to the top level when no nested folder on the way has it.
 */
function includeNested(dir, chain) {
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) return;
  for (const entry of readdirSync(modules)) {
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) {
      const nested = join(modules, name);
      if (!existsSync(join(nested, 'package.json'))) continue;
      const pkg = JSON.parse(readFileSync(join(nested, 'package.json'), 'utf8'));
      const inward = [nested, ...chain];
      for (const dep of Object.keys(pkg.dependencies ?? {})) {
        if (!inward.some((d) => existsSync(join(d, 'node_modules', dep, 'package.json')))) include(dep);
      }
      includeNested(nested, inward);
    }
  }
}
// The packages the staged code imports (bare specifiers), found by reading it.
function* jsFiles(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* jsFiles(p);
    else if (p.endsWith('.js')) yield p;
  }
}
const builtins = new Set(builtinModules);
for (const file of jsFiles(join(out, 'dist'))) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)['"]([^'".][^'"]*)['"]/g)) {
    const spec = m[1];
    if (spec.startsWith('node:') || builtins.has(spec)) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (existsSync(join(root, 'node_modules', name, 'package.json'))) include(name);
  }
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(join(out, 'package.json'), JSON.stringify({ name: `twins-${target}`, version, private: true, type: 'module' }, null, 2));
// GET /readme on the control plane serves the walk-through.
if (target === 'control-plane') cpSync(join(root, 'README.md'), join(out, 'README.md'));
console.log(`staged ${out} with ${[...seen].join(', ')}`);
