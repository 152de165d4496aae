// Linear's phrasebook: the operations a test outcome may name for this twin. Every Linear call is
// POST /graphql, so an operation is told apart by the mutation its query runs (docs/matchers.md
// lists the sentences; keep the two in step).

import { A, bodyContains, bodyEq, bodyVar, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

const mutation = (name: string) => ({ '/query': { contains: name } });

export const LINEAR_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'linear',
    label: 'create an issue',
    phrase: op(`(?:${v('create')}|${v('open')}|${v('file')}|${v('raise')})\\s+${A}(?:issues?|tickets?)`),
    method: 'POST',
    path: '/graphql',
    modifiers: {
      title: (m, value) => void (m.body = { ...(m.body ?? {}), ...mutation('issueCreate'), '/variables/input/title': value }),
      text: (m, value) => void (m.body = { ...(m.body ?? {}), ...mutation('issueCreate'), '/variables/input/description': { contains: value } }),
    },
    produces: { noun: 'issue', capture: 'response.body/data/issueCreate/issue/id' },
    successBody: { '/data/issueCreate/success': true },
  },
  {
    twin: 'linear',
    label: 'update an issue',
    phrase: op(`(?:${v('update')}|${v('move')}|${v('assign')}|${v('close')})\\s+${A}(?:issues?|tickets?)`),
    method: 'POST',
    path: '/graphql',
    modifiers: { title: (m, value) => void (m.body = { ...(m.body ?? {}), ...mutation('issueUpdate'), '/variables/input/title': value }) },
    refers: { issue: bodyVar('/variables/id') },
    successBody: { '/data/issueUpdate/success': true },
  },
  {
    twin: 'linear',
    label: 'comment on an issue',
    phrase: op(`${v('comment')}\\s+on\\s+${A}(?:issues?|tickets?)|${v('add')}\\s+${A}comments?`),
    method: 'POST',
    path: '/graphql',
    modifiers: { text: bodyContains('/variables/input/body') },
    refers: { issue: bodyVar('/variables/input/issueId') },
    successBody: { '/data/commentCreate/success': true },
  },
  {
    twin: 'linear',
    label: 'create a project',
    phrase: op(`${v('create')}\\s+${A}projects?`),
    method: 'POST',
    path: '/graphql',
    modifiers: { name: bodyEq('/variables/input/name') },
    produces: { noun: 'project', capture: 'response.body/data/projectCreate/project/id' },
    successBody: { '/data/projectCreate/success': true },
  },
];
