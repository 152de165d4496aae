// Hostile GraphQL against the GitHub and Linear twins: each query is measured before it runs (each
// fragment once) and refused past the provider's limits in the provider's own error shape, never a
// stall and never a JavaScript error as a message. Before, 16 fragments each spreading the previous
// three times held the GitHub twin 63 s, and a deeply nested query made Linear answer "RangeError:
// Maximum call stack size exceeded".

import t from 'tap';
import { startTwin } from '../helpers/twin.js';

const github = await startTwin('github');
const linear = await startTwin('linear');
t.teardown(async () => {
  await github.close();
  await linear.close();
});

/** Fragments F0 … F(n-1) on `type`: F0 selects `leaf`, each other spreads the previous as `body` says. */
function fragments(type: string, leaf: string, n: number, body: (previous: string) => string): string {
  let text = `fragment F0 on ${type} { ${leaf} }\n`;
  for (let k = 1; k < n; k++) text += `fragment F${k} on ${type} { ${body(`F${k - 1}`)} }\n`;
  return text;
}

/** Every hostile query is answered (an answer or a refusal) well within this. */
const ANSWERED_WITHIN_MS = 10_000;

async function post(twin: typeof github, authorization: string, query: string, variables?: unknown) {
  const started = performance.now();
  const res = await fetch(`${twin.url}/graphql`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as any;
  return { status: res.status, body, ms: performance.now() - started };
}

const gh = (query: string, variables?: unknown) => post(github, `token ${github.apiKey}`, query, variables);
const ln = (query: string, variables?: unknown) => post(linear, linear.apiKey, query, variables);

t.test('GitHub: 30 fragments, each spreading the previous three times, are measured once each and run', async (t) => {
  const res = await gh(`query { viewer { ...F29 } }\n${fragments('User', 'login', 30, (p) => `...${p} ...${p} ...${p}`)}`);
  t.ok(res.ms < ANSWERED_WITHIN_MS, `answered in ${Math.round(res.ms)} ms`);
  t.equal(res.status, 200);
  t.same(res.body.errors, undefined);
  t.type(res.body.data.viewer.login, 'string');
});

t.test('GitHub: aliases multiplying through fragments are refused before running (RESOURCE_LIMITS_EXCEEDED)', async (t) => {
  // 4 aliases per level, 12 levels: 16.7 million fields, no connection for the node limit to see.
  const query = `query { repository(owner: "octocat", name: "app") { ...F12 } }\n${fragments('Repository', 'name', 13, (p) => `a: parent { ...${p} } b: parent { ...${p} } c: parent { ...${p} } d: parent { ...${p} }`)}`;
  const res = await gh(query);
  t.ok(res.ms < ANSWERED_WITHIN_MS, `answered in ${Math.round(res.ms)} ms`);
  t.equal(res.status, 200);
  t.same(res.body, { errors: [{ type: 'RESOURCE_LIMITS_EXCEEDED', message: 'Resource limits for this query exceeded.' }] });
});

t.test("GitHub: the node limit, counted as GitHub's docs count it (MAX_NODE_LIMIT_EXCEEDED)", async (t) => {
  const within = await gh('{ viewer { repositories(first: 50) { nodes { issues(first: 10) { totalCount } } } } }');
  t.same(within.body.errors, undefined, '50 + 50 × 10 = 550 nodes are fine');
  const past = await gh(
    'query($n: Int!) { viewer { repositories(first: 100) { nodes { issues(first: 100) { nodes { comments(first: $n) { nodes { body } } } } } } } }',
    { n: 100 },
  );
  t.same(past.body, {
    errors: [{ type: 'MAX_NODE_LIMIT_EXCEEDED', message: 'This query requests up to 1,010,100 possible nodes which exceeds the maximum limit of 500,000.' }],
  });
});

t.test('GitHub: depth, exact through fragments, and nesting too deep to parse', async (t) => {
  const deep = await gh(`query { viewer { ...F40 } }\n${fragments('User', 'login', 41, (p) => `followers(first: 1) { nodes { ...${p} } }`)}`);
  t.match(deep.body, { errors: [{ message: 'Query has depth of 82, which exceeds max depth of 30' }] });
  const nested = await gh(`{ viewer ${'{ login '.repeat(5000)}${'}'.repeat(5000)} }`);
  t.ok(nested.ms < ANSWERED_WITHIN_MS);
  t.equal(nested.status, 200);
  t.match(nested.body, { errors: [{ message: 'Query has depth of more than 100, which exceeds max depth of 30' }] });
});

t.test('Linear: complexity past 10,000 is refused as Linear refuses it (400, invalid input)', async (t) => {
  const res = await ln('{ issues(first: 250) { nodes { id children(first: 250) { nodes { id title } } } } }');
  t.equal(res.status, 400);
  t.match(res.body, {
    errors: [
      {
        message: 'Query too complex',
        extensions: {
          type: 'invalid input',
          code: 'INPUT_ERROR',
          statusCode: 400,
          userError: true,
          // 1 + 250 × (1 + 0.1 + 1 + 250 × 1.2): a property 0.1, an object 1, a connection times its page.
          userPresentableMessage: /^The query is too complex\. Complexity: 7552[56][.\d]*\. Maximum allowed complexity: 10000\.$/,
        },
      },
    ],
  });
  t.equal(res.body.errors.length, 1);
  const fine = await ln('{ issues(first: 10) { nodes { id title } } }');
  t.equal(fine.status, 200);
  t.ok(Array.isArray(fine.body.data.issues.nodes));
});

t.test('Linear: hostile fragments and nesting end in a GraphQL error, never a RangeError', async (t) => {
  const same = await ln(`query { viewer { ...F29 } }\n${fragments('User', 'name', 30, (p) => `...${p} ...${p} ...${p}`)}`);
  t.ok(same.ms < ANSWERED_WITHIN_MS);
  t.equal(same.status, 200);
  t.type(same.body.data.viewer.name, 'string');
  const amplified = await ln(
    `query { viewer { ...F12 } }\n${fragments('User', 'name', 13, (p) => `a: organization { users(first: 10) { nodes { ...${p} } } }`)}`,
  );
  t.equal(amplified.status, 400);
  t.match(amplified.body, { errors: [{ message: 'Query too complex', extensions: { code: 'INPUT_ERROR' } }] });
  for (const query of [
    `{ viewer ${'{ name '.repeat(5000)}${'}'.repeat(5000)} }`,
    `{ issues(filter: ${'{ and: ['.repeat(3000)}${']}'.repeat(3000)}) { nodes { id } } }`,
  ]) {
    const res = await ln(query);
    t.ok(res.ms < ANSWERED_WITHIN_MS);
    t.equal(res.status, 400);
    t.match(res.body, { errors: [{ message: 'Query too complex', extensions: { userPresentableMessage: 'The query nests more than 100 levels deep.' } }] });
    t.notMatch(JSON.stringify(res.body), /RangeError/);
  }
});
