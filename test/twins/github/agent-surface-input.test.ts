// Hostile and malformed input on forks, collaborators, invitations, teams, reactions, issue events
// and /repositories/{id}: each gets GitHub's 4xx body (never a 500), and nothing is written.

import t from 'tap';
import { startGitHub } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
const org = 'octo-org';
await octokit.repos.createInOrg({ org, name: 'target', auto_init: true });
await octokit.issues.create({ owner: org, repo: 'target', title: 'An issue' });

async function send(method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${twin.url}${path}`, {
    method,
    body,
    headers: { authorization: `token ${twin.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const cases: [string, string, string | undefined, number][] = [
  ['POST', `/repos/${org}/target/forks`, '[]', 400],
  ['POST', `/repos/${org}/target/forks`, '{"name": 5}', 422],
  ['POST', `/repos/${org}/target/forks`, '{"name": "../escape"}', 422],
  ['POST', `/repos/${org}/target/forks`, '{"organization": {"__proto__": {"x": 1}}}', 422],
  ['GET', `/repos/${org}/target/forks?sort=constructor`, undefined, 422],
  ['PUT', `/repos/${org}/target/collaborators/hubot`, '{"permission": {}}', 422],
  ['PUT', `/repos/${org}/target/collaborators/hubot`, '{"permission": "__proto__"}', 422],
  ['PUT', `/repos/${org}/target/collaborators/hubot`, '{"permission": "toString"}', 422],
  ['GET', `/repos/${org}/target/collaborators?permission=constructor`, undefined, 422],
  ['GET', `/repos/${org}/target/collaborators?affiliation=__proto__`, undefined, 422],
  ['PATCH', `/repos/${org}/target/invitations/1`, '{"permissions": "__proto__"}', 422],
  ['PATCH', '/user/repository_invitations/abc', undefined, 404],
  ['POST', `/repos/${org}/target/issues/1/reactions`, '{"content": ["heart"]}', 422],
  ['POST', `/repos/${org}/target/issues/1/reactions`, '{"content": "constructor"}', 422],
  ['POST', `/repos/${org}/target/issues/1/reactions`, '{not json', 400],
  ['GET', `/repos/${org}/target/issues/1/reactions?content=__proto__`, undefined, 422],
  ['DELETE', `/repos/${org}/target/issues/1/reactions/abc`, undefined, 404],
  ['GET', `/repos/${org}/target/issues/abc/timeline`, undefined, 404],
  ['GET', `/repos/${org}/target/issues/events/abc`, undefined, 404],
  ['POST', `/orgs/${org}/teams`, '{"name": ""}', 422],
  ['POST', `/orgs/${org}/teams`, '{"name": "x", "parent_team_id": "1"}', 422],
  ['POST', `/orgs/${org}/teams`, '{"name": "x", "privacy": "public"}', 422],
  ['PUT', `/orgs/${org}/teams/nope/memberships/hubot`, '{}', 404],
  ['POST', `/repos/${org}/target/merge-upstream`, '{}', 422],
  ['GET', '/repositories/abc/issues', undefined, 404],
  ['GET', '/repositories/99999999999999999999/issues', undefined, 404],
];

t.test("malformed input gets a 4xx with GitHub's body", async (t) => {
  t.ok(cases.length > 0);
  for (const [method, path, body, status] of cases) {
    const res = await send(method, path, body);
    t.equal(res.status, status, `${method} ${path} ${body ?? ''}`);
    t.type(res.json?.message, 'string', `${method} ${path}: GitHub's error body`);
  }
  t.same((await octokit.teams.list({ org })).data, [], 'no team was made');
  t.same((await octokit.repos.listForks({ owner: org, repo: 'target' })).data, [], 'no fork was made');
  t.same((await octokit.reactions.listForIssue({ owner: org, repo: 'target', issue_number: 1 })).data, [], 'no reaction was kept');
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was polluted');
});
