// Stage what the twin-runtime image needs into build/image/app: the compiled runtime and twins,
// and only the production packages they import (with their dependency closure), not dev tooling.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'build', 'image', 'app');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'dist'), { recursive: true });
// The twins import their seed vocabulary from seeds/, so it ships too.
for (const dir of ['twin-runtime', 'twins', 'seeds']) {
  const from = join(root, 'dist', dir);
  if (!existsSync(from)) throw new Error(`dist/${dir} is missing: run the build first`);
  cpSync(from, join(out, 'dist', dir), { recursive: true, filter: (p) => !p.endsWith('.map') });
}

const seen = new Set();
function include(name) {
  if (seen.has(name)) return;
  seen.add(name);
  const dir = join(root, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  cpSync(dir, join(out, 'node_modules', name), {
    recursive: true,
    // Sources and build intermediates of native addons are not needed at run time.
    filter: (p) => !/[\\/](deps|src|obj\.target|test|docs)([\\/]|$)/.test(p.slice(dir.length)),
  });
  for (const dep of Object.keys(pkg.dependencies ?? {})) include(dep);
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
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'".][^'"]*)['"]/g)) {
    const spec = m[1];
    if (spec.startsWith('node:') || builtins.has(spec)) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (existsSync(join(root, 'node_modules', name, 'package.json'))) include(name);
  }
}
writeFileSync(join(out, 'package.json'), JSON.stringify({ name: 'twins-runtime', private: true, type: 'module' }, null, 2));
console.log(`staged ${out} with ${[...seen].join(', ')}`);
