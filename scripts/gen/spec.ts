// Spec → generated artefacts of each twin (`twins/<slug>/spec/`): source.json (the pinned spec),
// operations.json (the operation table), schemas.jsonl (lazily read pieces), and any other file the
// twin's spec source adds (Stripe's api-versions.json). Each twin names its source in its
// definition (`specSource`, usually spec/source.ts). See twin-runtime/generic/spec-types.ts for the
// format.
//
//   node --import=tsx scripts/gen/spec.ts [stripe github …]      (npm run gen:spec)
//
// test/generic/artefacts.test.ts regenerates in memory and fails when the checked-in files differ
// from what the installed spec packages give.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationTable } from '../../twin-runtime/generic/spec-types.js';
import { loadAllTwins, loadTwin, twinFolder } from '../../twin-runtime/registry.js';
import { refsOf } from '../../twin-runtime/spec-build/openapi.js';

/** The twins whose definition names a spec source. */
export async function specSlugs(): Promise<string[]> {
  return (await loadAllTwins()).filter((d) => d.specSource).map((d) => d.slug);
}

export function specDir(slug: string): string {
  return join(twinFolder(slug), 'spec');
}

/** The files of one twin's spec/, as text. */
export async function generateSpec(slug: string): Promise<Record<string, string>> {
  const def = await loadTwin(slug);
  if (!def.specSource) throw new Error(`the ${slug} twin names no spec source (specSource in twins/${slug}/index.ts)`);
  const module = await def.specSource();
  const src = module.source();
  const ids = new Set<string>();
  for (const op of src.operations) {
    if (ids.has(op.entry.id)) throw new Error(`${slug}: two operations named ${op.entry.id}`);
    ids.add(op.entry.id);
  }
  const lines: string[] = [];
  const names: string[] = [];
  const push = (name: string, value: unknown) => {
    names.push(name);
    lines.push(JSON.stringify([name, value]));
  };
  // Components reachable from some operation, so nothing unused ships.
  const wanted = new Set<string>();
  const queue: string[] = [];
  const want = (node: unknown) => {
    for (const r of refsOf(node))
      if (!wanted.has(r) && src.components[r] !== undefined) {
        wanted.add(r);
        queue.push(r);
      }
  };
  for (const op of src.operations) {
    push(`op:${op.entry.id}`, op.piece);
    want(op.piece);
    if (op.entry.response.ref) want({ $ref: `#/components/schemas/${op.entry.response.ref}` });
  }
  while (queue.length) want(src.components[queue.pop()!]);
  for (const name of [...wanted].sort()) push(name, src.components[name]);

  const pieces: OperationTable['pieces'] = {};
  let offset = 0;
  lines.forEach((line, i) => {
    const len = Buffer.byteLength(line) + 1;
    pieces[names[i]!] = [offset, len - 1];
    offset += len;
  });
  const table: OperationTable = {
    format: 1,
    provider: src.provider,
    operations: src.operations.map((o) => o.entry),
    pieces,
    formats: [...src.formats].sort(),
  };
  // One operation and one piece per line, so a spec update reads as a diff of what changed.
  const operationsJson =
    `{"format":1,"provider":${JSON.stringify(table.provider)},"formats":${JSON.stringify(table.formats)},\n"operations":[\n` +
    table.operations.map((o) => JSON.stringify(o)).join(',\n') +
    '\n],\n"pieces":{\n' +
    Object.entries(pieces)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join(',\n') +
    '\n}}\n';
  return {
    'source.json': JSON.stringify(src.source, null, 2) + '\n',
    'operations.json': operationsJson,
    'schemas.jsonl': lines.join('\n') + '\n',
    ...module.files?.(),
  };
}

export async function writeSpec(slug: string): Promise<void> {
  const dir = specDir(slug);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(await generateSpec(slug))) writeFileSync(join(dir, file), text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const slugs = process.argv.slice(2).length ? process.argv.slice(2) : await specSlugs();
  for (const slug of slugs) {
    const t0 = Date.now();
    await writeSpec(slug);
    process.stdout.write(`${slug}: ${specDir(slug)} (${Date.now() - t0} ms)\n`);
  }
}
