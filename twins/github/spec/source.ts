// GitHub: every operation of the published description of api.github.com (`@octokit/openapi`,
// `generated/api.github.com.json`). Paths under `/enterprises/` exist only for GitHub Enterprise
// accounts: listed, not served.

import type { OperationEntry, ResponseFacts } from '../../../twin-runtime/generic/spec-types.js';
import { refName, resolveComponent, type Json } from '../../../twin-runtime/spec-build/openapi.js';
import {
  compactComponents,
  documentOperations,
  packageFile,
  sortOperations,
  sourceOperation,
  type ProviderSource,
  type SourceOperation,
} from '../../../twin-runtime/spec-build/source.js';

export const GITHUB_ENTERPRISE_ONLY = /^\/enterprises\//;

function responseFacts(schemas: Record<string, Json>, schema: Json | undefined, status: number, media?: string): ResponseFacts {
  if (!schema) return media ? { kind: 'other', media } : { kind: 'none' };
  const resolved = resolveComponent(schemas, schema) ?? {};
  // One of several array shapes (stargazers with or without `starred_at`) is still an array.
  const arrays = Array.isArray(resolved.anyOf) && resolved.anyOf.every((b: Json) => resolveComponent(schemas, b)?.type === 'array');
  if (resolved.type === 'array' || arrays) {
    const facts: ResponseFacts = { kind: 'array' };
    const ref = refName(arrays ? resolveComponent(schemas, resolved.anyOf[0]).items : resolved.items);
    if (ref) facts.ref = ref;
    return facts;
  }
  const facts: ResponseFacts = { kind: 'object' };
  const ref = refName(schema);
  if (ref) facts.ref = ref;
  void status;
  return facts;
}

export function source(): ProviderSource {
  const spec = packageFile('@octokit/openapi', 'generated/api.github.com.json');
  const doc = JSON.parse(spec.text) as Json;
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);
  const operations: SourceOperation[] = [];
  for (const d of documentOperations(doc, formats)) {
    const entry: OperationEntry = {
      id: String(d.op.operationId),
      method: d.method,
      path: d.path,
      origin: 'spec',
      status: d.res.status,
      response: responseFacts(raw, d.res.schema, d.res.status, d.res.media),
    };
    if (d.op.externalDocs?.url) entry.docs = String(d.op.externalDocs.url);
    const operation = sourceOperation(entry, d);
    if (GITHUB_ENTERPRISE_ONLY.test(d.path)) entry.excluded = 'GitHub Enterprise accounts only (/enterprises/…)';
    operations.push(operation);
  }
  sortOperations(operations);
  return {
    provider: 'github',
    source: [{ role: 'spec', package: '@octokit/openapi', version: spec.version, file: 'generated/api.github.com.json', sha256: spec.sha256 }],
    operations,
    components,
    formats,
  };
}
