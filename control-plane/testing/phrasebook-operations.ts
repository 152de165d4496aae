// The phrasebook's vocabulary: every twin's operations (its definition's `phrasebook`, from
// twins/<slug>/vocabulary/phrasebook.ts), in the catalog's order, which is the order the compiler
// tries them. The building blocks live in twin-runtime/phrasebook.ts.

import type { PhrasebookOperation as Operation } from '../../twin-runtime/phrasebook.js';
import { loadAllTwins } from '../../twin-runtime/registry.js';

export type { Modifier, ModifierName, ModifierRule, PhrasebookOperation as Operation } from '../../twin-runtime/phrasebook.js';

let loaded: Promise<readonly Operation[]> | undefined;

export function phrasebookOperations(): Promise<readonly Operation[]> {
  if (!loaded) {
    loaded = loadAllTwins().then((defs) => defs.flatMap((d) => d.phrasebook ?? []));
    loaded.catch(() => (loaded = undefined));
  }
  return loaded;
}
