// Spec → generated artefacts of each twin (`twins/<slug>/spec/`): source.json (the pinned spec),
// operations.json (the operation table), schemas.jsonl (lazily read pieces). See
// twin-runtime/generic/spec-types.ts for the format.
//
//   node --import=tsx scripts/gen/spec.ts [stripe|github|slack …]      (npm run gen:spec)
//
// test/generic/artefacts.test.ts regenerates in memory and fails when the checked-in files differ
// from what the installed spec packages give.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationTable } from '../../twin-runtime/generic/spec-types.js';
import { refsOf } from './openapi.js';
import type { ProviderSource } from './sources/common.js';
import { anthropicSource } from './sources/anthropic.js';
import { githubSource } from './sources/github.js';
import { notionSource } from './sources/notion.js';
import { openaiSource } from './sources/openai.js';
import { sendgridSource } from './sources/sendgrid.js';
import { slackSource } from './sources/slack.js';
import { stripeSource } from './sources/stripe.js';
import { twilioSource } from './sources/twilio.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SOURCES: Record<string, () => ProviderSource> = {
  stripe: stripeSource,
  github: githubSource,
  slack: slackSource,
  openai: openaiSource,
  anthropic: anthropicSource,
  twilio: twilioSource,
  notion: notionSource,
  sendgrid: sendgridSource,
};

export function specDir(slug: string): string {
  return join(ROOT, 'twins', slug, 'spec');
}

/** The three files of one twin, as text. */
export function generateSpec(slug: string): Record<string, string> {
  const make = SOURCES[slug];
  if (!make) throw new Error(`no spec source for '${slug}'`);
  const src = make();
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
  };
}

export function writeSpec(slug: string): void {
  const dir = specDir(slug);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(generateSpec(slug))) writeFileSync(join(dir, file), text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const slugs = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SOURCES);
  for (const slug of slugs) {
    const t0 = Date.now();
    writeSpec(slug);
    process.stdout.write(`${slug}: ${specDir(slug)} (${Date.now() - t0} ms)\n`);
  }
}
