// The generated spec artefacts (twins/<slug>/spec/) are what the installed spec packages give
// today (a spec update without `npm run gen:spec` fails here), every piece the table indexes reads
// back, and a running twin reads only the pieces its calls need.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSpec, specDir, specSlugs } from '../../scripts/gen/spec.js';
import { SpecArtefacts } from '../../twin-runtime/generic/artefacts.js';
import { startTwin } from '../helpers/twin.js';

const slugs = await specSlugs();
t.ok(slugs.length >= 8, `twins with a spec source: ${slugs.join(', ')}`);
for (const slug of slugs) {
  t.test(`${slug}: checked-in artefacts are current`, async (t) => {
    const fresh = await generateSpec(slug);
    for (const [file, text] of Object.entries(fresh)) {
      const onDisk = readFileSync(join(specDir(slug), file), 'utf8');
      t.ok(onDisk === text, `${slug}/spec/${file} matches the installed spec (run npm run gen:spec ${slug} if not)`);
    }
  });

  t.test(`${slug}: every indexed piece reads back under its own name`, async (t) => {
    const a = new SpecArtefacts(specDir(slug));
    const names = Object.keys(a.table.pieces);
    // Notion's whole published surface (the SDK's endpoint table) is 75 operations.
    const floor = slug === 'notion' ? 70 : 100;
    t.ok(names.length > floor, `${names.length} pieces`);
    t.ok(a.operations.length > floor, `${a.operations.length} operations`);
    for (const name of names) if (a.piece(name) === undefined) t.fail(`piece ${name} is unreadable`);
    for (const op of a.operations) if (!a.table.pieces[`op:${op.id}`]) t.fail(`operation ${op.id} has no piece`);
    t.equal(new Set(a.operations.map((o) => o.id)).size, a.operations.length, 'operation ids are unique');
  });
}

t.test('github: every operation carries its documentation page (what documentation_url answers)', async (t) => {
  const a = new SpecArtefacts(specDir('github'));
  t.ok(a.operations.length > 1000, `${a.operations.length} operations`);
  t.same(
    a.operations.filter((o) => !o.docs).map((o) => o.id),
    [],
    'no operation without a page',
  );
  t.equal(
    a.operations.find((o) => o.method === 'GET' && o.path === '/repos/{owner}/{repo}/issues')?.docs,
    'https://docs.github.com/rest/issues/issues#list-repository-issues',
  );
});

t.test('a twin reads spec pieces lazily: starting and serving a few generic calls reads a small part', async (t) => {
  const twin = await startTwin('github');
  t.teardown(() => twin.close());
  const engine = twin.server.twin.generic as unknown as { artefacts: SpecArtefacts };
  const total = Object.keys(engine.artefacts.table.pieces).length;
  const headers = { authorization: `Bearer ${twin.apiKey}` };
  const me = ((await (await fetch(`${twin.url}/user`, { headers })).json()) as { login: string }).login;
  await fetch(`${twin.url}/user/repos`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'lazy' }),
  });
  for (const path of [`/repos/${me}/lazy/releases`, `/repos/${me}/lazy/autolinks`, `/repos/${me}/lazy/keys`]) {
    const res = await fetch(twin.url + path, { headers });
    t.equal(res.status, 200, `GET ${path}`);
  }
  t.ok(engine.artefacts.loadedPieces > 0, `${engine.artefacts.loadedPieces} pieces read`);
  t.ok(engine.artefacts.loadedPieces < total / 20, `${engine.artefacts.loadedPieces} of ${total} pieces read`);
});

t.test('a built twin (dist/) reads the artefacts beside its sources when dist holds only the copied table', async (t) => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { pathToFileURL } = await import('node:url');
  const { loadArtefacts } = await import('../../twin-runtime/generic/artefacts.js');
  const root = mkdtempSync(join(tmpdir(), 'artefacts-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const table = JSON.stringify({ operations: [], pieces: {} });
  // What tsc leaves in dist/: the imported operations.json, no schemas.jsonl.
  mkdirSync(join(root, 'dist', 'twins', 'x', 'spec'), { recursive: true });
  writeFileSync(join(root, 'dist', 'twins', 'x', 'spec', 'operations.json'), table);
  mkdirSync(join(root, 'twins', 'x', 'spec'), { recursive: true });
  writeFileSync(join(root, 'twins', 'x', 'spec', 'operations.json'), table);
  writeFileSync(join(root, 'twins', 'x', 'spec', 'schemas.jsonl'), '');
  const found = loadArtefacts(pathToFileURL(join(root, 'dist', 'twins', 'x', 'wire', 'generic.js')).href);
  t.equal(found.dir, join(root, 'twins', 'x', 'spec'));
});

t.test('stripe: spec/api-versions.json lists release names (checked current with the other artefacts above)', async (t) => {
  const current = JSON.parse(readFileSync(join(specDir('stripe'), 'api-versions.json'), 'utf8')) as { latest: string; release_names: string[] };
  t.ok(current.release_names.length > 0, 'release names are listed');
  t.match(current.latest, /^\d{4}-\d\d-\d\d\.[a-z]+$/);
});
