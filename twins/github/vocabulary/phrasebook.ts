// GitHub's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import {
  A,
  bodyContains,
  bodyEq,
  bodyIncludes,
  op,
  param,
  paramVar,
  v,
  type ModifierRule,
  type PhrasebookOperation,
} from '../../../twin-runtime/phrasebook.js';

const repoParams: ModifierRule = (m, value) => {
  const [owner, repo] = value.split('/');
  m.params = { ...(m.params ?? {}), owner: owner!, repo: repo! };
};

export const GITHUB_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'github',
    label: 'open an issue',
    phrase: op(`(?:${v('open')}|${v('create')}|${v('file')}|${v('raise')})\\s+${A}issues?`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues',
    modifiers: { title: bodyEq('/title'), label: bodyIncludes('/labels'), text: bodyContains('/body'), repo: repoParams, assignee: bodyIncludes('/assignees') },
    produces: { noun: 'issue', capture: 'response.body/number' },
  },
  {
    twin: 'github',
    label: 'close an issue',
    phrase: op(`${v('close')}\\s+${A}issues?`),
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/{issue_number}',
    modifiers: { number: param('issue_number'), repo: repoParams },
    refers: { issue: paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'comment on an issue',
    phrase: op(
      `${v('comment')}\\s+on\\s+${A}(?:issues?|pull\\s+requests?|prs?)|${v('add')}\\s+${A}comments?(?:\\s+(?:on|to)\\s+${A}(?:issues?|pull\\s+requests?))?`,
    ),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    modifiers: { number: param('issue_number'), repo: repoParams, text: bodyContains('/body') },
    refers: { issue: paramVar('issue_number'), 'pull request': paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'add a label to an issue',
    phrase: op(`(?:${v('add')}|${v('apply', 'applied')})\\s+${A}labels?`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    modifiers: { number: param('issue_number'), repo: repoParams, name: bodyIncludes('/labels'), label: bodyIncludes('/labels') },
    refers: { issue: paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'open a pull request',
    phrase: op(`(?:${v('open')}|${v('create')})\\s+${A}(?:pull\\s+requests?|prs?)`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/pulls',
    modifiers: { title: bodyEq('/title'), head: bodyEq('/head'), base: bodyEq('/base'), repo: repoParams, text: bodyContains('/body') },
    produces: { noun: 'pull request', capture: 'response.body/number' },
  },
  {
    twin: 'github',
    label: 'merge a pull request',
    phrase: op(`${v('merge')}\\s+${A}(?:pull\\s+requests?|prs?)`),
    method: 'PUT',
    path: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    modifiers: { number: param('pull_number'), repo: repoParams },
    refers: { 'pull request': paramVar('pull_number') },
  },
  {
    twin: 'github',
    label: 'create a repository',
    phrase: op(`${v('create')}\\s+${A}(?:repositor(?:y|ies)|repos?)`),
    method: 'POST',
    path: ['/user/repos', '/orgs/{org}/repos'],
    modifiers: { name: bodyEq('/name'), description: bodyEq('/description') },
  },
  {
    twin: 'github',
    label: 'delete a repository',
    phrase: op(`${v('delete')}\\s+${A}(?:repositor(?:y|ies)|repos?)`),
    method: 'DELETE',
    path: '/repos/{owner}/{repo}',
    modifiers: { repo: repoParams },
  },
];
