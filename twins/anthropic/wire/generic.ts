// The Anthropic twin's spec layer: the operations `@anthropic-ai/sdk` calls (twins/anthropic/spec/),
// listed for the coverage matrix; what no hand-written route answers is Anthropic's 404 not_found_error.

import { listedSurface } from '../../../twin-runtime/llm/listed-surface.js';

export const generic = listedSurface(import.meta.url, 'not modelled yet: answered as an unknown route (404 not_found_error)');
