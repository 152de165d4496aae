// Both compilers: the phrasebook (sentences → assertions, route and field checks, failures as
// sentences) and the LLM compiler against a local fake OpenAI-compatible endpoint.

import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compilePhrasebook } from '../../control-plane/testing/phrasebook.js';
import { compileWithLlm } from '../../control-plane/testing/llm-compiler.js';
import { compileOutcome } from '../../control-plane/testing/compile-outcome.js';
import { checkAssertions } from '../../control-plane/testing/assertion-checks.js';
import { compilePattern, patternProblem, MAX_PATTERN_PROGRAM } from '../../control-plane/testing/pattern.js';
import { normalizeAssertion, assertionsSchema } from '../../control-plane/testing/matcher-language.js';

t.test('phrasebook: one sentence per twin operation, with modifiers', async (tt) => {
  const stripe = await compilePhrasebook('The agent created a customer with email ada@example.com and refunded charge ch_3Pq9 exactly once.', ['stripe']);
  tt.ok(stripe.ok);
  if (!stripe.ok) return;
  tt.same(stripe.assertions, [
    {
      version: 1,
      says: 'created a customer with email ada@example.com',
      count: { at_least: 1 },
      match: { twin: 'stripe', method: 'POST', path: '/v1/customers', body: { '/email': 'ada@example.com' }, response: { status: '2xx' } },
    },
    {
      version: 1,
      says: 'refunded charge ch_3Pq9 exactly once',
      count: { exactly: 1 },
      match: { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/charge': 'ch_3Pq9' }, response: { status: '2xx' } },
    },
  ]);

  const refund = await compilePhrasebook('refunded $42', ['stripe']);
  tt.match(
    refund,
    { ok: true, assertions: [{ match: { response: { status: '2xx', body: { '/amount': 4200 } } } }] },
    'amounts in minor units, read from the refund',
  );

  const slack = await compilePhrasebook('posted a message to #general containing "deploy done"', ['slack']);
  tt.match(slack, {
    ok: true,
    assertions: [
      {
        match: {
          twin: 'slack',
          path: '/api/chat.postMessage',
          body: { '/channel': { one_of: ['#general', 'general'] }, '/text': { contains: 'deploy done' } },
          response: { body: { '/ok': true } },
        },
      },
    ],
  });

  const linear = await compilePhrasebook('created an issue titled "Login broken"', ['linear']);
  tt.match(linear, {
    ok: true,
    assertions: [
      {
        match: {
          twin: 'linear',
          path: '/graphql',
          body: { '/query': { contains: 'issueCreate' }, '/variables/input/title': 'Login broken' },
          response: { body: { '/data/issueCreate/success': true } },
        },
      },
    ],
  });
  const jira = await compilePhrasebook('commented on an issue', ['jira']);
  tt.match(jira, { ok: true, assertions: [{ match: { twin: 'jira', method: 'POST', path: '/rest/api/3/issue/{issueIdOrKey}/comment' } }] });
  const twilio = await compilePhrasebook('sent an SMS containing "shipped"', ['twilio']);
  tt.match(twilio, {
    ok: true,
    assertions: [
      { match: { twin: 'twilio', method: 'POST', path: '/2010-04-01/Accounts/{AccountSid}/Messages.json', body: { '/Body': { contains: 'shipped' } } } },
    ],
  });
  const notion = await compilePhrasebook('commented on a page containing "LGTM"', ['notion']);
  tt.match(notion, {
    ok: true,
    assertions: [{ match: { twin: 'notion', method: 'POST', path: '/v1/comments', body: { '/rich_text/0/text/content': { contains: 'LGTM' } } } }],
  });

  const github = await compilePhrasebook('opened an issue labelled bug in acme/web. Never deleted a repository', ['github']);
  tt.match(github, {
    ok: true,
    assertions: [
      {
        count: { at_least: 1 },
        match: { method: 'POST', path: '/repos/{owner}/{repo}/issues', params: { owner: 'acme', repo: 'web' }, body: { '/labels': { includes: 'bug' } } },
      },
      { says: 'Never deleted a repository', never: { twin: 'github', method: 'DELETE', path: '/repos/{owner}/{repo}' } },
    ],
  });
  if (github.ok) tt.notOk('response' in (github.assertions[1] as { never: object }).never, 'never counts every attempt, whatever the answer');
});

t.test('phrasebook: counts and order words', async (tt) => {
  const counts: [string, unknown][] = [
    ['created at least 2 customers', { at_least: 2 }],
    ['created at most three customers', { at_most: 3 }],
    ['created between 2 and 4 customers', { between: [2, 4] }],
    ['created a customer twice', { exactly: 2 }],
    ['created no more than 1 customer', { at_most: 1 }],
  ];
  for (const [sentence, count] of counts) tt.match(await compilePhrasebook(sentence, ['stripe']), { ok: true, assertions: [{ count }] }, sentence);
  tt.match(await compilePhrasebook('did not delete any customer', ['stripe']), { ok: true, assertions: [{ never: { method: 'DELETE' } }] });
  tt.match(await compilePhrasebook('created no customers', ['stripe']), { ok: true, assertions: [{ never: { path: '/v1/customers' } }] });

  const seq = await compilePhrasebook('created a payment intent for $42, then refunded that payment intent', ['stripe']);
  tt.match(seq, {
    ok: true,
    assertions: [
      {
        sequence: [
          { match: { path: '/v1/payment_intents', body: { '/amount': 4200 } }, capture: { payment_intent_1: 'response.body/id' } },
          { match: { path: '/v1/refunds', body: { '/payment_intent': { var: 'payment_intent_1' } } } },
        ],
      },
    ],
  });
  const after = await compilePhrasebook('closed that issue after opening an issue', ['github']);
  tt.match(
    after,
    {
      ok: true,
      assertions: [
        {
          sequence: [
            { says: 'opening an issue', capture: { issue_1: 'response.body/number' } },
            { says: 'closed that issue', match: { params: { issue_number: { var: 'issue_1' } } } },
          ],
        },
      ],
    },
    '"A after B" puts B first',
  );
  const before = await compilePhrasebook('opened an issue before closing issue #3', ['github']);
  tt.match(before, { ok: true, assertions: [{ sequence: [{ match: { method: 'POST' } }, { match: { method: 'PATCH', params: { issue_number: '3' } } }] }] });
});

t.test('phrasebook: what it cannot compile fails with a sentence', async (tt) => {
  tt.same(await compilePhrasebook('refunded the duplicate $42 charge and touched no other charge', ['stripe']), {
    ok: false,
    failure:
      'Could not compile "refunded the duplicate $42 charge": the words "duplicate" are not part of any phrase for refund a charge or payment; see docs/matchers.md.',
  });
  tt.match(await compilePhrasebook('posted a message to #general', ['stripe']), {
    ok: false,
    failure: /"post a message" is a slack operation, but this test's twins are stripe/,
  });
  tt.match(await compilePhrasebook('danced a jig', ['stripe']), { ok: false, failure: /no phrase of the phrasebook starts "danced a jig"/ });
  tt.match(await compilePhrasebook('created a customer labelled bug', ['stripe']), { ok: false, failure: /"label bug" does not apply to create a customer/ });
  tt.match(await compilePhrasebook('created a customer twice, then deleted that customer', ['stripe']), {
    ok: false,
    failure: /counts and "never" cannot be part of an ordered sequence/,
  });
  tt.match(await compilePhrasebook('   ', ['stripe']), { ok: false, failure: /The outcome is empty/ });
});

t.test('compile-time checks against the twin routes and documented fields', async (tt) => {
  const check = async (raw: unknown[], twins: string[]) =>
    checkAssertions(
      assertionsSchema.parse(raw).map((a) => normalizeAssertion(a, twins)),
      twins,
    );
  tt.same(await check([{ says: 'ok', match: { method: 'POST', path: '/api/chat.postMessage', body: { '/channel': 'C1' } } }], ['slack']), []);
  tt.match(await check([{ says: 'x', match: { method: 'POST', path: '/api/chat.postMesage' } }], ['slack']), [
    { index: 0, at: 'match', message: 'POST /api/chat.postMesage is not an operation the slack twin serves.' },
  ]);
  tt.match(await check([{ says: 'x', match: { method: 'POST', path: '/v1/refunds', body: { '/amountt': 1 } } }], ['stripe']), [
    { message: /^Body field 'amountt' is not a parameter of POST \/v1\/refunds; it takes amount, charge/ },
  ]);
  // GitHub Enterprise's spelling reaches the same operations (and their documented fields); git's smart HTTP is not under it.
  tt.same(await check([{ says: 'ok', match: { method: 'POST', path: '/api/v3/repos/{owner}/{repo}/issues', body: { '/title': 'x' } } }], ['github']), []);
  tt.same(await check([{ says: 'ok', match: { method: 'GET', path: '/api/v3/repos/o/r/releases' } }], ['github']), []);
  tt.match(await check([{ says: 'x', match: { method: 'POST', path: '/api/v3/repos/{owner}/{repo}/issues', body: { '/titel': 'x' } } }], ['github']), [
    { message: /^Body field 'titel' is not a parameter of POST \/api\/v3\/repos/ },
  ]);
  tt.match(await check([{ says: 'x', match: { method: 'GET', path: '/api/v3/o/r/info/refs' } }], ['github']), [
    { message: 'GET /api/v3/o/r/info/refs is not an operation the github twin serves.' },
  ]);
  tt.match(await check([{ says: 'x', match: { twin: 'github', path: '/v1/customers' } }], ['stripe']), [
    { message: /github twin, which is not among this test's twins/ },
  ]);
  tt.match(await check([{ says: 'x', match: { path: '/v1/customers', body: { '/email': { matches: '(a)\\1' } } } }], ['stripe']), [
    { message: /Backreferences are not supported/ },
  ]);
  tt.match(await check([{ says: 'x', sequence: [{ match: { path: '/v1/refunds', body: { '/charge': { var: 'ch' } } } }] }], ['stripe']), [
    { at: 'sequence.0.match', message: /uses variable 'ch' before any earlier step captures it/ },
  ]);
  tt.match(await check([{ says: 'x', sequence: [{ match: { path: '/v1/charges' }, capture: { ch: 'response.id' } }] }], ['stripe']), [
    { message: /not a capture source/ },
  ]);
  tt.match(await check([{ says: 'x', match: { path: '/v1/customers', response: { status: 'ok' } } }], ['stripe']), [{ message: /is not a status code/ }]);
  tt.match(await check([{ says: 'x', match: { path: { starts: '/v1' } } }], ['stripe']), [{ message: /path must be a path or template/ }]);
});

t.test('matches uses RE2 (linear time); what it cannot or may not run is refused with a sentence', async (tt) => {
  const cases: [string, string, boolean][] = [
    ['a+b', 'xaab', true],
    ['^ab$', 'abc', false],
    ['(a|b)*c', 'ababc', true],
    ['(?:ab){2,3}$', 'xababab', true],
    ['[0-9]{3}-[^a-z]', '123-X', true],
    ['\\d+\\.\\d', '3.1', true],
    ['\\w+@\\w+', 'no at sign', false],
    ['(?i)^crash', 'Crash on start', true],
    ['^a.c$', 'a\nc', false],
  ];
  for (const [p, s, want] of cases) tt.equal(compilePattern(p).test(s), want, `${p} on ${s}`);
  // Catastrophic for a backtracking engine; RE2 answers at once.
  tt.equal(compilePattern('(a*)*(a|a)*b').test('a'.repeat(5000)), false);
  tt.match(patternProblem('(?=x)'), /Lookaround/);
  tt.match(patternProblem('(?<!x)y'), /Lookaround/);
  tt.match(patternProblem('(a)\\1'), /Backreferences are not supported/);
  tt.match(patternProblem('a*+'), /Possessive/);
  tt.match(patternProblem('a{1,1001}'), /above 1000/);
  tt.match(patternProblem('('), /^Missing closing \)/);
  tt.match(patternProblem('[a-z]{0,100}'.repeat(110)), new RegExp(`at most ${MAX_PATTERN_PROGRAM} are supported`));
  tt.match(patternProblem('x'.repeat(10_001)), /at most 10000 are supported/);
  tt.equal(patternProblem('x'.repeat(3500)), undefined, 'a long literal is fine');
});

function fakeLlm(answer: (body: any) => { status?: number; content: unknown }): Promise<{ url: string; server: Server; requests: any[] }> {
  const requests: any[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text);
      requests.push({ path: req.url, auth: req.headers.authorization, body });
      const a = answer(body);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [
            { index: 0, message: { role: 'assistant', content: typeof a.content === 'string' ? a.content : JSON.stringify(a.content) }, finish_reason: 'stop' },
          ],
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server, requests })),
  );
}

t.test('LLM compiler against a local OpenAI-compatible endpoint', async (tt) => {
  const good = [
    {
      says: 'refunded the duplicate $42 charge',
      count: { exactly: 1 },
      match: { twin: 'stripe', method: 'POST', path: '/v1/refunds', response: { status: '2xx', body: { '/amount': 4200 } } },
    },
    { says: 'touched no other charge', never: { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/charge': { ne: 'ch_dup' } } } },
  ];
  let reply: unknown = { assertions_json: JSON.stringify(good), failure: null };
  const llm = await fakeLlm(() => ({ content: reply }));
  tt.teardown(() => llm.server.close());
  const config = { url: llm.url, model: 'test-model', apiKey: 'sk-local' };

  const ok = await compileWithLlm(config, 'refunded the duplicate $42 charge and touched no other charge', ['stripe']);
  tt.same(ok, { ok: true, assertions: good.map((a) => ({ version: 1, ...a })) });
  const sent = llm.requests[0];
  tt.equal(sent.path, '/v1/chat/completions');
  tt.equal(sent.auth, 'Bearer sk-local');
  tt.equal(sent.body.model, 'test-model');
  tt.equal(sent.body.response_format.type, 'json_schema');
  tt.match(sent.body.messages[0].content, /stripe: refund a charge or payment → POST \/v1\/refunds/, 'the prompt lists the twin operations');

  // The phrasebook cannot read this sentence, so compileOutcome falls through to the model.
  tt.match(await compileOutcome('refunded the duplicate $42 charge and touched no other charge', ['stripe'], config), { ok: true, compiler: 'llm' });
  tt.match(await compileOutcome('created a customer', ['stripe'], config), { ok: true, compiler: 'phrasebook' });
  tt.match(await compileOutcome('refunded the duplicate charge', ['stripe'], undefined), { ok: false, failure: /No language model is configured/ });

  reply = { assertions_json: '[]', failure: 'Whether the agent was polite cannot be seen in HTTP traffic.' };
  tt.same(await compileWithLlm(config, 'was polite', ['stripe']), {
    ok: false,
    failure: 'The language model could not compile the outcome: Whether the agent was polite cannot be seen in HTTP traffic.',
  });

  reply = { assertions_json: JSON.stringify([{ says: 'x', match: { method: 'POST', path: '/v1/refundz' } }]), failure: null };
  tt.match(await compileWithLlm(config, 'x', ['stripe']), {
    ok: false,
    failure: /assertion 1, "x"\): POST \/v1\/refundz is not an operation the stripe twin serves/,
  });

  reply = { assertions_json: JSON.stringify([{ says: 'x', count: { sometimes: 1 }, match: {} }]), failure: null };
  tt.match(await compileWithLlm(config, 'x', ['stripe']), { ok: false, failure: /do not fit the matcher language/ });

  reply = 'not json at all';
  tt.match(await compileWithLlm(config, 'x', ['stripe']), { ok: false, failure: /did not answer with JSON/ });

  const down = await compileWithLlm({ url: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 2000 }, 'x', ['stripe']);
  tt.match(down, { ok: false, failure: /could not be reached/ });
});
