// Notion's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import { A, bodyContains, op, param, paramVar, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const NOTION_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'notion',
    label: 'create a page',
    phrase: op(`(?:${v('create')}|${v('add')}|${v('write', 'wrote', 'written')})\\s+${A}(?:pages?|rows?|entries|entry)`),
    method: 'POST',
    path: '/v1/pages',
    modifiers: {},
    produces: { noun: 'page', capture: 'response.body/id' },
  },
  {
    twin: 'notion',
    label: 'update a page',
    phrase: op(`(?:${v('update')}|${v('edit')}|${v('archive')}|${v('change')})\\s+${A}(?:pages?|rows?|entries|entry)`),
    method: 'PATCH',
    path: '/v1/pages/{page_id}',
    modifiers: { number: param('page_id') },
    refers: { page: paramVar('page_id') },
  },
  {
    twin: 'notion',
    label: 'comment on a page',
    phrase: op(`${v('comment')}\\s+on\\s+${A}pages?|${v('add')}\\s+${A}comments?\\s+(?:on|to)\\s+${A}pages?`),
    method: 'POST',
    path: '/v1/comments',
    modifiers: { text: bodyContains('/rich_text/0/text/content') },
  },
  {
    twin: 'notion',
    label: 'append blocks',
    phrase: op(`(?:${v('append')}|${v('add')})\\s+${A}(?:blocks?|paragraphs?|children)`),
    method: 'PATCH',
    path: '/v1/blocks/{block_id}/children',
    modifiers: { number: param('block_id') },
  },
  {
    twin: 'notion',
    label: 'query a database',
    phrase: op(`${v('query')}\\s+${A}(?:databases?|data\\s+sources?)`),
    method: 'POST',
    path: ['/v1/data_sources/{data_source_id}/query', '/v1/databases/{database_id}/query'],
    modifiers: {},
  },
];
