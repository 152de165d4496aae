// GitHub's documentation page of every REST operation (`externalDocs.url` in @octokit/openapi's
// api.github.com description), as `"METHOD /template" → url`, written to
// twins/github/spec/docs-urls.json. The twin answers each error with the page of the operation the
// path belongs to, as GitHub does. Run after upgrading @octokit/openapi:
//   node --import=tsx scripts/gen/github-docs-urls.ts          (writes the file)
//   node --import=tsx scripts/gen/github-docs-urls.ts --check  (exit 1 when the file is stale)

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SPEC = '@octokit/openapi/generated/api.github.com.json';
const OUT = fileURLToPath(new URL('../../twins/github/spec/docs-urls.json', import.meta.url));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  externalDocs?: { url?: string };
}

export function docsUrlTable(spec: { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> }): Record<string, string> {
  const rows: [string, string][] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const url = item[method]?.externalDocs?.url;
      if (url) rows.push([`${method.toUpperCase()} ${path}`, url]);
    }
  }
  rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(rows);
}

export function render(): string {
  const spec = JSON.parse(readFileSync(require.resolve(SPEC), 'utf8'));
  const pkg = JSON.parse(readFileSync(require.resolve('@octokit/openapi/package.json'), 'utf8')) as { version: string };
  const doc = { source: `@octokit/openapi@${pkg.version} generated/api.github.com.json`, operations: docsUrlTable(spec) };
  return JSON.stringify(doc, null, 1) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = render();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUT, 'utf8');
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) {
      process.stderr.write(`${OUT} is stale: run node --import=tsx scripts/gen/github-docs-urls.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
    process.stdout.write(`wrote ${Object.keys(JSON.parse(text).operations).length} operations to ${OUT}\n`);
  }
}
