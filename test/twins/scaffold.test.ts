// `npm run new:twin -- demo` in a copy of the tree (hard links, so it costs next to nothing and the
// real tree never shows a twin that other test files would meet): it writes only twins/demo/ and
// test/twins/demo/, the registry finds the new folder, and the scaffolded tests pass — the catalog
// lists the twin, its items work over HTTP, its seeds generate, its phrasebook compiles.

import t from 'tap';
import { execFile } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { scaffoldTwin } from '../../scripts/new-twin.js';

const run = promisify(execFile);
// Two processes that each load every twin (the scaffold's and the scaffolded test's): ~12 s of CPU,
// minutes of wall time on a busy machine.
t.setTimeout(600_000);
const REPO = join(import.meta.dirname, '..', '..');

/** Hard-link a tree (copy where links are not possible). */
function linkTree(from: string, to: string): void {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) linkTree(join(from, name), join(to, name));
    return;
  }
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function filesUnder(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesUnder(join(dir, d.name), root) : [relative(root, join(dir, d.name))],
  );
}

// Inside the repository (not under node_modules, where tsx would compile as CommonJS), so the copy's
// bare imports resolve to the repository's node_modules.
const parent = join(REPO, '.tmp');
mkdirSync(parent, { recursive: true });
const copy = mkdtempSync(join(parent, 'scaffold-'));
t.teardown(() => rmSync(copy, { recursive: true, force: true }));
for (const part of [
  'package.json',
  'tsconfig.json',
  'biome.jsonc',
  '.gitignore',
  'bin',
  'control-plane',
  'twin-runtime',
  'twins',
  'seeds',
  'scripts',
  'test/helpers',
  'test/seeds/seed-fixture.ts',
])
  linkTree(join(REPO, part), join(copy, part));

t.test('the scaffold refuses a taken or malformed slug', async (t) => {
  await t.rejects(scaffoldTwin({ slug: 'stripe', root: copy }), /twins\/stripe exists already/);
  await t.rejects(scaffoldTwin({ slug: 'Not_A_Slug', root: copy }), /is not a twin slug/);
  await t.rejects(scaffoldTwin({ slug: '../escape', root: copy }), /is not a twin slug/);
});

t.test('npm run new:twin -- demo: a working twin with its tests, no edit elsewhere', async (t) => {
  const before = new Set(filesUnder(copy));
  const out = await run('npm', ['run', '--silent', 'new:twin', '--', 'demo'], { cwd: copy });
  t.match(out.stdout, /created twins\/demo\/index\.ts/);
  const added = filesUnder(copy).filter((f) => !before.has(f));
  t.ok(added.length > 5, `${added.length} files written`);
  t.same(
    added.filter((f) => !f.startsWith(join('twins', 'demo')) && !f.startsWith(join('test', 'twins', 'demo'))),
    [],
    'nothing outside twins/demo and test/twins/demo',
  );
  t.ok(before.size === filesUnder(copy).length - added.length, 'no file removed');

  // The house style and lint rules hold for what it wrote (make test lints the tree).
  const lint = await run(
    join(REPO, 'node_modules', '.bin', 'biome'),
    ['ci', '--error-on-warnings', '--colors=off', join('twins', 'demo'), join('test', 'twins', 'demo')],
    {
      cwd: copy,
    },
  ).catch((e: { stdout?: string; stderr?: string }) => ({ ...e, failed: true }));
  t.notOk('failed' in lint, 'biome ci passes on the scaffold', { output: `${lint.stdout ?? ''}${lint.stderr ?? ''}` });

  const registry = (await import(pathToFileURL(join(copy, 'twin-runtime', 'registry.ts')).href)) as typeof import('../../twin-runtime/registry.js');
  t.ok(registry.TWIN_SLUGS.includes('demo'), 'the registry finds the folder');

  // The scaffolded test file, as the suite runs it (it checks the catalog entry too).
  const tests = await run(process.execPath, ['--import=tsx', join('test', 'twins', 'demo', 'demo.test.ts')], {
    cwd: copy,
    env: { ...process.env, TWINS_EGRESS: 'loopback' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((e: { stdout?: string; stderr?: string; code?: number }) => e);
  const stdout = tests.stdout ?? '';
  t.notOk('code' in tests && tests.code, 'the scaffolded tests exit 0', { stdout, stderr: tests.stderr });
  t.notMatch(stdout, /^\s*not ok/m, 'no failing assertion');
  // Run alone, a tap file prints its subtests' results and its plan (`1..5`).
  const plan = /^1\.\.(\d+)$/m.exec(stdout);
  const passed = stdout.match(/^ok \d+ - /gm) ?? [];
  t.ok(plan && Number(plan[1]) >= 5 && passed.length === Number(plan[1]), `${passed.length} of ${plan?.[1]} subtests pass`);
});
