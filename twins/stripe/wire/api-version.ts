// `Stripe-Version`: which API versions a request may pin. The versions come from the bundled
// `stripe` SDK (the version it pins, and the ones its changelog names; generated into
// spec/api-versions.json by spec/source.ts (npm run gen:spec stripe)), not a hand-kept list: a
// version is accepted when it is a real date no later than the SDK's, and its release name (the
// `.clover` part), if any, is one Stripe has used. Anything else is refused as Stripe refuses it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { invalidRequest } from './errors.js';

/** The API version the twin speaks: the one the bundled `stripe` package pins. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

interface KnownVersions {
  latest: string;
  releaseNames: Set<string>;
}

let known: KnownVersions | undefined;

/** spec/api-versions.json, generated from the SDK (spec/source.ts), read once. */
function knownVersions(): KnownVersions {
  if (known) return known;
  const file = join(loadArtefacts(import.meta.url).dir, 'api-versions.json');
  const { latest, release_names } = JSON.parse(readFileSync(file, 'utf8')) as { latest: string; release_names: string[] };
  return (known = { latest, releaseNames: new Set(release_names) });
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
