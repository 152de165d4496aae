// The spec layer of a twin whose provider surface is listed but not served generically (openai,
// anthropic: their operation tables come from the official SDKs' resource classes, without
// schemas to synthesise records from). Every operation a hand-written route does not answer is
// `not_served` with its reason in the coverage matrix; the twin answers it as the provider answers
// an unknown route.

import type { GenericSurface } from '../generic/types.js';
import { loadArtefacts } from '../generic/artefacts.js';

export function listedSurface(moduleUrl: string, notServed: string): GenericSurface {
  const artefacts = loadArtefacts(moduleUrl);
  return {
    resources: [],
    routes: () => [],
    requestFields: () => undefined,
    operations: () => artefacts.operations.map((entry) => ({ entry, served: false, reason: entry.excluded ?? notServed })),
  };
}
