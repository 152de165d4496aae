// RE2JS (linear-time regular expressions for patterns users supply), loaded on the first pattern
// compiled rather than at a twin's start: the package is one 257 KB module that GitHub and the LLM
// twins otherwise parse on every cold start (scripts/bench/twin-start.ts).

import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { loadOnce } from './load-once.js';

export type { RE2JS };

export const re2js = loadOnce(() => (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);
