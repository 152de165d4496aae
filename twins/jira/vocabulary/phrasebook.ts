// Jira's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import { A, bodyContains, bodyEq, bodyIncludes, op, param, paramVar, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const JIRA_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'jira',
    label: 'create an issue',
    phrase: op(`(?:${v('create')}|${v('open')}|${v('file')}|${v('raise')})\\s+${A}(?:issues?|tickets?|bugs?|stories|story|tasks?)`),
    method: 'POST',
    path: '/rest/api/3/issue',
    modifiers: { title: bodyEq('/fields/summary'), text: bodyContains('/fields/summary'), label: bodyIncludes('/fields/labels') },
    produces: { noun: 'issue', capture: 'response.body/key' },
  },
  {
    twin: 'jira',
    label: 'transition an issue',
    phrase: op(`(?:${v('transition')}|${v('move')}|${v('resolve')}|${v('close')})\\s+${A}(?:issues?|tickets?)`),
    method: 'POST',
    path: '/rest/api/3/issue/{issueIdOrKey}/transitions',
    modifiers: { number: param('issueIdOrKey') },
    refers: { issue: paramVar('issueIdOrKey') },
  },
  {
    twin: 'jira',
    label: 'comment on an issue',
    phrase: op(`${v('comment')}\\s+on\\s+${A}(?:issues?|tickets?)|${v('add')}\\s+${A}comments?(?:\\s+(?:on|to)\\s+${A}(?:issues?|tickets?))?`),
    method: 'POST',
    path: '/rest/api/3/issue/{issueIdOrKey}/comment',
    modifiers: { number: param('issueIdOrKey') },
    refers: { issue: paramVar('issueIdOrKey') },
  },
  {
    twin: 'jira',
    label: 'assign an issue',
    phrase: op(`${v('assign')}\\s+${A}(?:issues?|tickets?)`),
    method: 'PUT',
    path: '/rest/api/3/issue/{issueIdOrKey}/assignee',
    modifiers: { number: param('issueIdOrKey'), assignee: bodyEq('/accountId') },
    refers: { issue: paramVar('issueIdOrKey') },
  },
];
