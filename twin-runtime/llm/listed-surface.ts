// The spec layer of a twin whose provider surface is listed but not served generically (openai,
// anthropic, notion: their operation tables come from the official SDKs, without schemas to
// synthesise records from). Every operation a hand-written route does not answer is `unsupported`
// with its reason in the coverage matrix, and the twin refuses it honestly (`NotSimulated`, the
// provider's own error envelope) rather than answering it as an unknown route: the path is real.

import type { TwinHandler } from '../contract.js';
import { NotSimulated, operationName } from '../fidelity.js';
import type { GenericRoute, GenericSurface } from '../generic/types.js';
import { loadArtefacts } from '../generic/artefacts.js';
import { templateShape } from '../path-template.js';

export function listedSurface(moduleUrl: string, notServed: string): GenericSurface {
  const artefacts = loadArtefacts(moduleUrl);
  const reasonOf = (excluded: string | undefined) => excluded ?? notServed;
  return {
    resources: [],
    routes: () => {
      const shapes = new Set<string>();
      const out: GenericRoute[] = [];
      for (const entry of artefacts.operations) {
        const shape = `${entry.method} ${templateShape(entry.path)}`;
        if (shapes.has(shape)) continue;
        shapes.add(shape);
        const reason = reasonOf(entry.excluded);
        const handler: TwinHandler = (req) => {
          throw new NotSimulated(operationName(req), reason);
        };
        out.push({ method: entry.method, path: entry.path, operationId: entry.id, handler, fidelity: 'unsupported' });
      }
      return out;
    },
    requestFields: () => undefined,
    operations: () => artefacts.operations.map((entry) => ({ entry, served: false, level: 'unsupported' as const, reason: reasonOf(entry.excluded) })),
  };
}
