// OpenAI's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands.

import { A, bodyEq, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const OPENAI_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'openai',
    label: 'ask the model',
    phrase: op(`${v('ask', 'asked')}\\s+${A}(?:model|llm|gpt|openai)|${v('create')}\\s+${A}(?:chat\\s+)?completions?|${v('prompt')}\\s+${A}(?:model|llm|gpt)`),
    method: 'POST',
    path: ['/v1/chat/completions', '/v1/responses'],
    modifiers: { name: bodyEq('/model') },
  },
  {
    twin: 'openai',
    label: 'create an embedding',
    phrase: op(`(?:${v('create')}|${v('compute', 'computed')})\\s+${A}embeddings?|${v('embed')}`),
    method: 'POST',
    path: '/v1/embeddings',
    modifiers: { name: bodyEq('/model') },
  },
  {
    twin: 'openai',
    label: 'upload a file',
    phrase: op(`${v('upload')}\\s+${A}files?`),
    method: 'POST',
    path: '/v1/files',
    modifiers: {},
    produces: { noun: 'file', capture: 'response.body/id' },
  },
];
