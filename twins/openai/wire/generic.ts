// The OpenAI twin's spec layer: the operations the `openai` SDK calls (twins/openai/spec/), listed
// for the coverage matrix; what no hand-written route answers is OpenAI's 404 `Invalid URL`.

import { listedSurface } from '../../../twin-runtime/llm/listed-surface.js';

export const generic = listedSurface(import.meta.url, 'not modelled yet: answered as an unknown URL (404 Invalid URL)');
