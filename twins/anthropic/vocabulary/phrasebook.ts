// Anthropic's phrasebook: the operations a test outcome may name for this twin.

import { A, bodyEq, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const ANTHROPIC_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'anthropic',
    label: 'ask Claude',
    phrase: op(
      `${v('ask', 'asked')}\\s+${A}(?:claude|anthropic)|${v('create')}\\s+${A}(?:claude\\s+)?messages?\\s+(?:to|with|for)\\s+claude|${v('prompt')}\\s+${A}claude`,
    ),
    method: 'POST',
    path: '/v1/messages',
    modifiers: { name: bodyEq('/model') },
  },
  {
    twin: 'anthropic',
    label: 'count tokens',
    phrase: op(`${v('count')}\\s+${A}tokens?`),
    method: 'POST',
    path: '/v1/messages/count_tokens',
    modifiers: { name: bodyEq('/model') },
  },
];
