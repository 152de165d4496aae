// What a twin's spec source (twins/<slug>/spec/source.ts, its definition's `specSource`) hands the
// generator (scripts/gen/spec.ts): operations (table entries plus their request and response
// pieces) and the component schemas those pieces refer to; and helpers to read installed packages.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { OperationEntry, OperationPiece, SpecSource } from '../generic/spec-types.js';
import { compactSchema, type Json } from './openapi.js';

export interface SourceOperation {
  entry: OperationEntry;
  piece: OperationPiece;
}

export interface ProviderSource {
  provider: string;
  source: SpecSource[];
  operations: SourceOperation[];
  /** Component schemas (already compacted) by name. */
  components: Record<string, Json>;
  formats: Set<string>;
}

/** A twin's spec source module: the generator calls `source()`, and writes what `files()` gives beside it. */
export interface TwinSpecSource {
  source(): ProviderSource;
  /** Other files of spec/ generated from the provider's packages, by name (Stripe's api-versions.json). */
  files?(): Record<string, string>;
}

export const require = createRequire(import.meta.url);

/** The folder of an installed package (its `exports` may hide `package.json` from resolve). */
export function packageRoot(pkg: string): string {
  for (const dir of require.resolve.paths(pkg) ?? []) {
    const candidate = join(dir, pkg);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  throw new Error(`package ${pkg} is not installed`);
}

/** Read a file of an installed package, with the package's version and the file's hash. */
export function packageFile(pkg: string, file: string): { text: string; version: string; sha256: string; path: string } {
  const path = join(packageRoot(pkg), file);
  const text = readFileSync(path, 'utf8');
  return { text, version: packageVersion(pkg), sha256: createHash('sha256').update(text).digest('hex'), path };
}

export function packageVersion(pkg: string): string {
  return String(JSON.parse(readFileSync(join(packageRoot(pkg), 'package.json'), 'utf8')).version);
}

/** Template shape: every `{param}` as `{}` (two templates with one shape are one operation). */
export function shapeOf(method: string, template: string): string {
  return `${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '{}')}`;
}

/** A spec's component schemas, compacted, added to `into` (the formats they use go to `formats`). */
export function compactComponents(doc: Json, formats: Set<string>, into: Record<string, Json> = {}): Record<string, Json> {
  for (const [name, s] of Object.entries<Json>(doc.components?.schemas ?? {})) into[name] = compactSchema(s, { formats });
  return into;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `people` stays, `taxes` → `tax`, `entries` → `entry`, `statuses` → `status`, `alerts` → `alert`. */
export function singular(word: string): string {
  if (/ies$/.test(word)) return word.slice(0, -3) + 'y';
  if (/(ss|x|ch|sh|us)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}
