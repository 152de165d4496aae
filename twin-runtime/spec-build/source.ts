// What a twin's spec source (twins/<slug>/spec/source.ts, its definition's `specSource`) hands the
// generator (scripts/gen/spec.ts): operations (table entries plus their request and response
// pieces) and the component schemas those pieces refer to; and helpers to read installed packages.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { OperationEntry, OperationPiece, SpecSource } from '../generic/spec-types.js';
import { compactSchema, requestPiece, successResponse, type Json, type RequestPiece, type SuccessResponse } from './openapi.js';

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

/** One operation of an OpenAPI document, with its success answer and its request piece. */
export interface DocumentOperation {
  path: string;
  method: OperationEntry['method'];
  /** The path item (parameters shared by its operations) and the operation object. */
  item: Json;
  op: Json;
  res: SuccessResponse;
  request: RequestPiece;
}

/** Every operation of `doc`, path by path in the document's order (the walk every spec source starts from). */
export function* documentOperations(doc: Json, formats: Set<string>): Generator<DocumentOperation> {
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!op) continue;
      yield {
        path,
        method: m.toUpperCase() as OperationEntry['method'],
        item,
        op,
        res: successResponse(doc, op, { formats }),
        request: requestPiece(doc, item, op, { formats }),
      };
    }
  }
}

/** The source operation of `entry` (its request body's media type noted), answered as `d` says. */
export function sourceOperation(entry: OperationEntry, d: Pick<DocumentOperation, 'res' | 'request'>): SourceOperation {
  if (d.request.body) entry.body = d.request.body.media;
  return { entry, piece: { request: d.request, response: d.res.schema } };
}

/** Operations in the order the generated table keeps them: by path, then method. */
export function sortOperations(operations: SourceOperation[]): SourceOperation[] {
  return operations.sort((a, b) => a.entry.path.localeCompare(b.entry.path) || a.entry.method.localeCompare(b.entry.method));
}
