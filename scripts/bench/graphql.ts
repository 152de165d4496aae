// GitHub GraphQL against REST on the same twin, side by side in one run: the first GraphQL request
// (it builds GitHub's schema, ~1,600 types, once per process), then alternating rounds of the query
// `gh issue list` sends (30 issues with labels, assignees, author, comment count) and the REST list
// that returns the same issues, and `gh pr checks`' statusCheckRollup query against REST's
// check-runs + combined status. Medians and the GraphQL / REST ratio are printed.
//
//   node --import=tsx scripts/bench/graphql.ts [--rounds 40]

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startTwin } from '../../test/helpers/twin.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' } } });
const ROUNDS = Number(values.rounds);

const twin = await startTwin('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
const auth = { authorization: `token ${twin.apiKey}`, 'content-type': 'application/json' };
const rest = (method: string, path: string, body?: unknown) =>
  fetch(twin.url + path, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as any,
  }));
const gql = (query: string) =>
  fetch(`${twin.url}/api/graphql`, { method: 'POST', headers: auth, body: JSON.stringify({ query }) }).then(async (r) => (await r.json()) as any);

await rest('POST', '/user/repos', { name: 'app', auto_init: true });
for (let i = 0; i < 30; i++) await rest('POST', '/repos/octocat/app/issues', { title: `Issue ${i}`, body: 'x', labels: ['bug'], assignees: ['octocat'] });
const sha = (await rest('GET', '/repos/octocat/app/git/ref/heads/main')).json.object.sha;
for (let i = 0; i < 5; i++) await rest('POST', '/repos/octocat/app/check-runs', { name: `check ${i}`, head_sha: sha, conclusion: 'success' });
for (let i = 0; i < 5; i++) await rest('POST', `/repos/octocat/app/statuses/${sha}`, { state: 'success', context: `ctx ${i}` });

const ISSUES = `{ repository(owner: "octocat", name: "app") { hasIssuesEnabled issues(first: 30, states: [OPEN], orderBy: {field: CREATED_AT, direction: DESC}) {
  totalCount nodes { number title url state updatedAt author { login } labels(first: 100) { nodes { name color } totalCount } assignees(first: 100) { nodes { login } } comments { totalCount } } } } }`;
const ROLLUP = `{ repository(owner: "octocat", name: "app") { object(oid: "${sha}") { ... on Commit { statusCheckRollup { state contexts(first: 100) { nodes {
  __typename ... on CheckRun { name status conclusion startedAt completedAt detailsUrl } ... on StatusContext { context state targetUrl createdAt } } } } } } } }`;

let t0 = performance.now();
const first = await gql('{ viewer { login } }');
const firstMs = performance.now() - t0;
if (first.data?.viewer?.login !== 'octocat') throw new Error(JSON.stringify(first));
if ((await gql(ISSUES)).data.repository.issues.nodes.length !== 30) throw new Error('issues query');
if ((await gql(ROLLUP)).data.repository.object.statusCheckRollup.contexts.nodes.length !== 10) throw new Error('rollup query');

const times: Record<string, number[]> = { gqlIssues: [], restIssues: [], gqlRollup: [], restRollup: [] };
for (let i = 0; i < ROUNDS; i++) {
  t0 = performance.now();
  await gql(ISSUES);
  times.gqlIssues!.push(performance.now() - t0);
  t0 = performance.now();
  await rest('GET', '/repos/octocat/app/issues?per_page=30');
  times.restIssues!.push(performance.now() - t0);
  t0 = performance.now();
  await gql(ROLLUP);
  times.gqlRollup!.push(performance.now() - t0);
  t0 = performance.now();
  await Promise.all([rest('GET', `/repos/octocat/app/commits/${sha}/check-runs`), rest('GET', `/repos/octocat/app/commits/${sha}/status`)]);
  times.restRollup!.push(performance.now() - t0);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
console.log(`first GraphQL request (schema build): ${firstMs.toFixed(0)} ms`);
console.log(
  `gh issue list query (30 issues): GraphQL ${m.gqlIssues!.toFixed(1)} ms, REST list ${m.restIssues!.toFixed(1)} ms, ratio ${(m.gqlIssues! / m.restIssues!).toFixed(2)}`,
);
console.log(
  `statusCheckRollup (5 runs + 5 statuses): GraphQL ${m.gqlRollup!.toFixed(1)} ms, REST check-runs + status ${m.restRollup!.toFixed(1)} ms, ratio ${(m.gqlRollup! / m.restRollup!).toFixed(2)}`,
);
await twin.close();
