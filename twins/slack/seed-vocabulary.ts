// Seed vocabulary and suggested starting states of this twin. Owned by the seeds component
// (seeds/ issue): it fills `suggestions` and `seeding`; the twin's index.ts only re-exports them.

import type { SeedSuggestion } from '../../twin-runtime/contract.js';

export const suggestions: SeedSuggestion[] = [];

export const seeding: unknown = undefined;
