// The fields the bundled `stripe` SDK's types declare for an object (`interface Invoice` in
// esm/resources/Invoices.d.ts): the shape of the SDK's pinned API version, read with the
// TypeScript compiler, for tests that check the twin's default-version objects carry nothing else.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
// The package's root (its exports map does not expose package.json): above its entry point.
const entry = require.resolve('stripe');
const sdkRoot = entry.slice(0, entry.lastIndexOf(join('node_modules', 'stripe')) + join('node_modules', 'stripe').length);

/** Property names of `export interface <name>` in the SDK's `resources/<file>.d.ts`. */
export function sdkFields(file: string, name: string): Set<string> {
  const path = join(sdkRoot, 'esm', 'resources', `${file}.d.ts`);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  for (const node of source.statements) {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) {
      return new Set(node.members.filter(ts.isPropertySignature).map((m) => (m.name as ts.Identifier).text));
    }
  }
  throw new Error(`no interface ${name} in ${path}`);
}

/** The fields of `object` the SDK's types do not declare (should be none). */
export function undeclaredFields(object: Record<string, unknown>, file: string, name: string): string[] {
  const declared = sdkFields(file, name);
  return Object.keys(object).filter((k) => !declared.has(k));
}
