// Main response bodies checked against GitHub's published OpenAPI description (@octokit/openapi,
// api.github.com), validated with ajv + ajv-formats: the document's component schemas are loaded
// as one schema and referenced by `#/components/schemas/<name>`. OpenAPI 3.0's `nullable` is
// honoured by ajv's own `nullable` keyword support.

import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startGitHub, b64 } from './setup.js';

const require = createRequire(import.meta.url);
const specPath = require.resolve('@octokit/openapi/generated/api.github.com.json');
const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { components: { schemas: Record<string, object> } };
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
for (const f of ['int32', 'int64', 'float', 'double', 'binary', 'byte', 'password', 'repo.nwo', 'ssh-key', 'ssh-key fingerprint', 'uri-template']) {
  ajv.addFormat(f, true);
}
ajv.addSchema({ components: nullableToJsonSchema(spec.components) }, 'github');

/**
 * OpenAPI 3.0 `nullable: true` next to `allOf`/`anyOf`/`$ref` (no `type`) is not something ajv's
 * `nullable` keyword accepts; rewrite those into `anyOf: [{type: 'null'}, …]`, and let nullable
 * enums hold null.
 */
function nullableToJsonSchema(node: any): any {
  if (Array.isArray(node)) return node.map(nullableToJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: any = {};
  for (const [k, v] of Object.entries(node))
    out[k] =
      k === 'properties' || k === 'schemas' || k === 'patternProperties'
        ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, nullableToJsonSchema(pv)]))
        : nullableToJsonSchema(v);
  // A nullable enum admits null too (OpenAPI 3.0.3 clarification); GitHub sends `state_reason: null`.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if ('nullable' in out && out.type === undefined) {
    const { nullable, ...rest } = out;
    return nullable ? { anyOf: [{ type: 'null' }, rest] } : rest;
  }
  return out;
}

function check(t: Test, schema: string, value: unknown): void {
  if (!spec.components.schemas[schema]) throw new Error(`no schema ${schema}`);
  const validate = ajv.compile({ $ref: `github#/components/schemas/${schema}` });
  const ok = validate(value);
  t.ok(ok, `${schema} matches GitHub's schema`, { errors: ok ? undefined : validate.errors?.slice(0, 5) });
}

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit } = gh;
const owner = 'octo-org';
const repo = 'schema';

t.test('accounts', async (t) => {
  check(t, 'private-user', (await octokit.users.getAuthenticated()).data);
  check(t, 'public-user', (await octokit.users.getByUsername({ username: 'hubot' })).data);
  check(t, 'organization-full', (await octokit.orgs.get({ org: owner })).data);
  check(t, 'simple-user', (await octokit.orgs.listMembers({ org: owner })).data[0]);
  check(t, 'org-membership', (await octokit.orgs.getMembershipForUser({ org: owner, username: 'hubot' })).data);
  check(t, 'rate-limit-overview', (await octokit.rateLimit.get()).data);
});

t.test('repositories and git', async (t) => {
  const created = await octokit.repos.createInOrg({ org: owner, name: repo, auto_init: true });
  check(t, 'full-repository', created.data);
  check(t, 'full-repository', (await octokit.repos.get({ owner, repo })).data);
  check(t, 'minimal-repository', (await octokit.repos.listForOrg({ org: owner })).data[0]);
  check(t, 'repository', (await octokit.repos.listForAuthenticatedUser()).data[0]);
  const file = await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'a/b.txt', message: 'Add b', content: b64('b\n') });
  check(t, 'file-commit', file.data);
  check(t, 'content-file', (await octokit.repos.getContent({ owner, repo, path: 'a/b.txt' })).data);
  check(t, 'commit', (await octokit.repos.getCommit({ owner, repo, ref: 'main' })).data);
  check(t, 'commit', (await octokit.repos.listCommits({ owner, repo })).data[0]);
  check(t, 'git-commit', (await octokit.git.getCommit({ owner, repo, commit_sha: file.data.commit.sha! })).data);
  check(t, 'git-ref', (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data);
  check(t, 'short-branch', (await octokit.repos.listBranches({ owner, repo })).data[0]);
  check(t, 'branch-with-protection', (await octokit.repos.getBranch({ owner, repo, branch: 'main' })).data);
  check(t, 'hook', (await octokit.repos.createWebhook({ owner, repo, config: { url: 'http://127.0.0.1:9/hook' }, active: false })).data);
});

t.test('issues, labels, milestones, comments, search', async (t) => {
  const ms = await octokit.issues.createMilestone({ owner, repo, title: 'v1', due_on: '2026-02-01T00:00:00Z' });
  check(t, 'milestone', ms.data);
  const issue = await octokit.issues.create({ owner, repo, title: 'Shape', body: 'b', labels: ['bug'], assignees: ['hubot'], milestone: ms.data.number });
  check(t, 'issue', issue.data);
  check(t, 'issue', (await octokit.issues.update({ owner, repo, issue_number: issue.data.number, state: 'closed', state_reason: 'not_planned' })).data);
  check(t, 'issue', (await octokit.issues.listForRepo({ owner, repo, state: 'all' })).data[0]);
  check(t, 'label', (await octokit.issues.createLabel({ owner, repo, name: 'shape', color: 'aabbcc' })).data);
  check(t, 'label', (await octokit.issues.listLabelsForRepo({ owner, repo })).data[0]);
  check(t, 'issue-comment', (await octokit.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'c' })).data);
  check(t, 'issue-search-result-item', (await octokit.search.issuesAndPullRequests({ q: `repo:${owner}/${repo}` })).data.items[0]);
});

t.test('pull requests', async (t) => {
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/feat', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'c.txt', branch: 'feat', message: 'Add c', content: b64('c\n') });
  const pr = await octokit.pulls.create({ owner, repo, title: 'Shape PR', head: 'feat', base: 'main', body: 'x' });
  check(t, 'pull-request', pr.data);
  check(t, 'pull-request-simple', (await octokit.pulls.list({ owner, repo })).data[0]);
  check(t, 'diff-entry', (await octokit.pulls.listFiles({ owner, repo, pull_number: pr.data.number })).data[0]);
  check(t, 'commit', (await octokit.pulls.listCommits({ owner, repo, pull_number: pr.data.number })).data[0]);
  check(t, 'pull-request-review', (await octokit.pulls.createReview({ owner, repo, pull_number: pr.data.number, event: 'APPROVE' })).data);
  check(
    t,
    'pull-request-review-comment',
    (await octokit.pulls.createReviewComment({ owner, repo, pull_number: pr.data.number, body: 'n', path: 'c.txt', line: 1, commit_id: pr.data.head.sha }))
      .data,
  );
  check(t, 'commit-comparison', (await octokit.repos.compareCommitsWithBasehead({ owner, repo, basehead: 'main...feat' })).data);
  check(t, 'pull-request-merge-result', (await octokit.pulls.merge({ owner, repo, pull_number: pr.data.number, merge_method: 'squash' })).data);
  check(t, 'pull-request', (await octokit.pulls.get({ owner, repo, pull_number: pr.data.number })).data);
});

t.test('forks, collaborators, invitations, teams, reactions, issue events and timeline', async (t) => {
  const fork = await octokit.repos.createFork({ owner, repo });
  check(t, 'full-repository', fork.data);
  check(t, 'minimal-repository', (await octokit.repos.listForks({ owner, repo })).data[0]);
  // `feat` was squash-merged above, so the fork's `feat` still has a commit the base lacks.
  const pr = await octokit.pulls.create({ owner, repo, title: 'From the fork', head: `${fork.data.owner.login}:feat`, base: 'main' });
  check(t, 'pull-request', pr.data);

  const mine = await octokit.repos.createForAuthenticatedUser({ name: 'schema-solo' });
  const inv = await octokit.repos.addCollaborator({ owner: mine.data.owner.login, repo: 'schema-solo', username: 'hubot' });
  check(t, 'repository-invitation', inv.data);
  await octokit.repos.addCollaborator({ owner, repo, username: 'hubot', permission: 'triage' });
  check(t, 'collaborator', (await octokit.repos.listCollaborators({ owner, repo })).data[0]);
  check(t, 'repository-collaborator-permission', (await octokit.repos.getCollaboratorPermissionLevel({ owner, repo, username: 'hubot' })).data);

  const team = await octokit.teams.create({ org: owner, name: 'Shapes' });
  check(t, 'team-full', team.data);
  check(t, 'team', (await octokit.teams.list({ org: owner })).data[0]);
  check(t, 'team-membership', (await octokit.teams.addOrUpdateMembershipForUserInOrg({ org: owner, team_slug: 'shapes', username: 'hubot' })).data);
  await octokit.teams.addOrUpdateRepoPermissionsInOrg({ org: owner, team_slug: 'shapes', owner, repo, permission: 'push' });
  check(t, 'minimal-repository', (await octokit.teams.listReposInOrg({ org: owner, team_slug: 'shapes' })).data[0]);
  check(t, 'team', (await octokit.repos.listTeams({ owner, repo })).data[0]);

  const issue = await octokit.issues.create({ owner, repo, title: 'Events', labels: ['bug'], assignees: ['hubot'] });
  const comment = await octokit.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'c' });
  check(t, 'reaction', (await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.data.number, content: 'heart' })).data);
  check(t, 'reaction', (await octokit.reactions.createForIssueComment({ owner, repo, comment_id: comment.data.id, content: 'rocket' })).data);
  check(t, 'issue', (await octokit.issues.get({ owner, repo, issue_number: issue.data.number })).data);
  await octokit.issues.update({ owner, repo, issue_number: issue.data.number, title: 'Renamed', state: 'closed' });
  await octokit.issues.lock({ owner, repo, issue_number: issue.data.number, lock_reason: 'resolved' });
  const events = (await octokit.issues.listEvents({ owner, repo, issue_number: issue.data.number })).data;
  t.ok(events.length >= 5);
  for (const e of events) check(t, 'issue-event-for-issue', e);
  for (const e of (await octokit.issues.listEventsForRepo({ owner, repo })).data) check(t, 'issue-event', e);
  const timeline = (await octokit.issues.listEventsForTimeline({ owner, repo, issue_number: issue.data.number })).data;
  t.ok(timeline.length >= 6);
  for (const e of timeline) check(t, 'timeline-issue-events', e);
});
