// The permission a GitHub App installation token needs for each REST route, pinned as data from
// Octokit's table of GitHub's "Permissions required for GitHub Apps" (@octokit/app-permissions).
// Never edited by hand:
//
//   npm pack @octokit/app-permissions@2.1.0 && tar xzf octokit-app-permissions-2.1.0.tgz
//   node --import=tsx scripts/gen/github-app-permissions.ts package
//
// → twins/github/spec/app-permissions.json: "METHOD /path/{}/with/{}/holes" → the permission sets
// that each grant it, [permission, access] (any one is enough). The table lists the contents API's
// file writes under `single_file` only; `contents` grants them too (it is the wider permission).

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../../twins/github/spec/app-permissions.json', import.meta.url));

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: scripts/gen/github-app-permissions.ts <extracted @octokit/app-permissions package dir>');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
const raw = readFileSync(join(dir, 'generated/api.github.com.json'));
const table = JSON.parse(raw.toString('utf8')) as { permissions: Record<string, Partial<Record<'read' | 'write', string[]>>> };
const routes: Record<string, [string, string][]> = {};
const grant = (route: string, permission: string, access: string) => {
  const [method, path] = route.split(' ') as [string, string];
  const key = `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
  const sets = (routes[key] ??= []);
  if (!sets.some(([p, a]) => p === permission && a === access)) sets.push([permission, access]);
};
for (const [permission, byAccess] of Object.entries(table.permissions)) {
  for (const access of ['read', 'write'] as const) {
    for (const route of byAccess[access] ?? []) {
      grant(route, permission, access);
      if (permission === 'single_file') grant(route, 'contents', access);
    }
  }
}
const sorted = Object.fromEntries(Object.entries(routes).sort(([a], [b]) => a.localeCompare(b)));
const out = {
  source: { package: pkg.name, version: pkg.version, file: 'generated/api.github.com.json', sha256: createHash('sha256').update(raw).digest('hex') },
  routes: sorted,
};
writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${Object.keys(sorted).length} routes from ${pkg.name}@${pkg.version} → ${OUT}`);
