// `Stripe-Version`: which API versions a request may pin. The versions come from the bundled
// `stripe` SDK (the version it pins, and the ones its changelog names), not a copied list: a
// version is accepted when it is a real date no later than the SDK's, and its release name (the
// `.clover` part), if any, is one Stripe has used. Anything else is refused as Stripe refuses it.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { invalidRequest } from './errors.js';

interface KnownVersions {
  latest: string;
  releaseNames: Set<string>;
}

let known: KnownVersions | undefined;

function sdkRoot(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve('stripe'));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'stripe') return dir;
    } catch {
      // not the package root yet
    }
    dir = dirname(dir);
  }
  throw new Error('the stripe package root was not found');
}

function knownVersions(): KnownVersions {
  if (known) return known;
  const root = sdkRoot();
  const apiVersionJs = readFileSync(join(root, 'cjs', 'apiVersion.js'), 'utf8');
  const latest = /ApiVersion = '([^']+)'/.exec(apiVersionJs)?.[1] ?? '';
  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
  const releaseNames = new Set<string>();
  for (const m of changelog.matchAll(/\b20\d\d-\d\d-\d\d\.([a-z]+)\b/g)) releaseNames.add(m[1]!);
  const latestName = latest.split('.')[1];
  if (latestName) releaseNames.add(latestName);
  return (known = { latest, releaseNames });
}

const VERSION = /^(\d{4})-(\d{2})-(\d{2})(?:\.([a-z]+))?$/;

/** Refuse a `Stripe-Version` Stripe would not know (400 `invalid_request_error`). */
export function checkApiVersion(version: string): void {
  const { latest, releaseNames } = knownVersions();
  const m = VERSION.exec(version);
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
  const real = m !== null && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
  const ok = real && date >= '2011-01-01' && date <= latest.slice(0, 10) && (m![4] === undefined || releaseNames.has(m![4]));
  if (!ok) throw invalidRequest(`Invalid Stripe API version: ${version}`);
}
