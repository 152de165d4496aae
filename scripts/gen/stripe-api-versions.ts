// Which `Stripe-Version`s the Stripe twin accepts, read from the bundled `stripe` SDK (the version
// it pins, and the release names its changelog uses) into twins/stripe/spec/api-versions.json, so a
// running twin (and an image, which ships spec/ but not the SDK's changelog) reads no package.
//   node --import=tsx scripts/gen/stripe-api-versions.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const API_VERSIONS_FILE = join(ROOT, 'twins', 'stripe', 'spec', 'api-versions.json');

function sdkRoot(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('stripe'));
  for (let i = 0; i < 6; i++) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'stripe') return dir;
    } catch {
      // not the package root yet
    }
    dir = dirname(dir);
  }
  throw new Error('the stripe package root was not found');
}

/** The file's text: `{latest, release_names}` (names sorted). */
export function apiVersionsJson(): string {
  const root = sdkRoot();
  const latest = /ApiVersion = '([^']+)'/.exec(readFileSync(join(root, 'cjs', 'apiVersion.js'), 'utf8'))?.[1] ?? '';
  const names = new Set<string>();
  for (const m of readFileSync(join(root, 'CHANGELOG.md'), 'utf8').matchAll(/\b20\d\d-\d\d-\d\d\.([a-z]+)\b/g)) names.add(m[1]!);
  const latestName = latest.split('.')[1];
  if (latestName) names.add(latestName);
  return JSON.stringify({ latest, release_names: [...names].sort() }, null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(API_VERSIONS_FILE, apiVersionsJson());
  process.stdout.write(`wrote ${API_VERSIONS_FILE}\n`);
}
