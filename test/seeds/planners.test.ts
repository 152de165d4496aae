// The two planners behind one interface: the built-in reader of a twin's vocabulary (plans of the
// issue's example, useful failures) and the LLM planner against a local fake OpenAI-compatible
// endpoint (schema request, validation of its answer, fallback order).

import t from 'tap';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadTwin } from '../../twin-runtime/registry.js';
import { planFromPrompt } from '../../seeds/builtin-planner.js';
import { planSeed } from '../../seeds/planning.js';
import { resolvePlan } from '../../seeds/entities.js';
import type { TwinSeeding } from '../../twin-runtime/seeding.js';

const stripe = (await loadTwin('stripe')).seeding as TwinSeeding;

t.test('built-in: the issue example becomes explicit groups', async (t) => {
  const r = planFromPrompt(
    'stripe',
    'A Stripe account with forty customers, twelve on the Pro monthly plan, 3 of them past due, and a customer named Ana Lima with two charges of $42, one a duplicate',
    stripe.vocabulary,
  );
  if (!r.ok) return t.fail(r.failure);
  const g = r.plan.groups.map((x) => [x.resource, x.count, x.within, x.owner, x.state, Object.fromEntries(x.attributes.map((a) => [a.name, a.value]))]);
  t.same(g, [
    ['customer', 40, null, null, null, {}],
    ['customer', 12, 'g1', null, null, { plan: 'Pro monthly' }],
    ['customer', 3, 'g2', null, 'past_due', {}],
    ['customer', 1, null, null, null, { name: 'Ana Lima' }],
    ['charge', 2, null, 'g4', null, { amount: '4200', currency: 'usd' }],
    ['charge', 1, 'g5', null, 'duplicate', {}],
  ]);
  t.equal(r.plan.clock_start, '2026-01-01T00:00:00.000Z');
  const entities = resolvePlan(r.plan);
  t.equal(entities.length, 41);
  t.same(entities[0]!.states, ['past_due'], 'the first members of a group take its narrowings');
  t.same(entities[39]!.states, []);
  t.same(
    entities.slice(0, 12).map((e) => e.attributes.plan),
    Array(12).fill('Pro monthly'),
  );
  t.equal(entities.slice(0, 12).filter((e) => e.states.includes('past_due')).length, 3);
  t.same(
    entities[40]!.children.map((c) => c.states),
    [['duplicate'], []],
  );
});

t.test('built-in: sibling "of them" clauses, dates', async (t) => {
  const r = planFromPrompt('stripe', '30 customers on the Team monthly plan, 5 of them past due and 4 of them canceled, as of 2026-03-01', stripe.vocabulary);
  if (!r.ok) return t.fail(r.failure);
  t.same(
    r.plan.groups.map((g) => g.within),
    [null, 'g1', 'g1'],
  );
  t.equal(r.plan.clock_start, '2026-03-01T00:00:00.000Z');
});

t.test('built-in: failures name what could not be used', async (t) => {
  const nonsense = planFromPrompt('stripe', 'purple elephants dancing on the moon', stripe.vocabulary);
  t.notOk(nonsense.ok);
  if (!nonsense.ok) {
    t.match(nonsense.failure, 'could not use "purple elephants dancing moon"');
    t.match(nonsense.failure, /customer, charge, subscription, product/);
  }
  const partly = planFromPrompt('stripe', '40 customers who churned last quarter', stripe.vocabulary);
  t.notOk(partly.ok);
  if (!partly.ok) t.match(partly.failure, 'could not use "last quarter" (in "40 customers who churned last quarter")');
  const tooMany = planFromPrompt('stripe', '3 customers, 5 of them past due', stripe.vocabulary);
  t.ok(tooMany.ok, 'plans; resolution catches the overflow');
  if (tooMany.ok) t.throws(() => resolvePlan(tooMany.plan), /only 3 of them/);
  const wrongState = planFromPrompt('stripe', '3 charges, 1 of them past due', stripe.vocabulary);
  t.notOk(wrongState.ok);
  if (!wrongState.ok) t.match(wrongState.failure, "the state 'past_due' does not apply to charge records");
});

interface FakeLlm {
  url: string;
  requests: any[];
  close(): Promise<void>;
}

async function fakeLlm(answer: (body: any) => { status?: number; content: unknown }): Promise<FakeLlm> {
  const requests: any[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push({ path: req.url, auth: req.headers.authorization, body });
    const out = answer(body);
    res.writeHead(out.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify(out.content) } }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

const PROMPT = 'Some folks who bought stuff recently, maybe a dozen, one of whom is Ana';

t.test('LLM planner: used when the built-in planner cannot read the prompt; its plan is validated', async (t) => {
  const llm = await fakeLlm(() => ({
    content: {
      clock_start: null,
      groups: [
        { id: 'a', resource: 'customer', count: 12, within: null, owner: null, state: null, attributes: [] },
        { id: 'b', resource: 'customer', count: 1, within: 'a', owner: null, state: null, attributes: [{ name: 'name', value: 'Ana' }] },
        { id: 'c', resource: 'charge', count: 1, within: null, owner: 'a', state: null, attributes: [] },
      ],
      pools: [],
    },
  }));
  t.teardown(() => llm.close());
  const out = await planSeed({ twin: 'stripe', prompt: PROMPT, seeding: stripe }, { url: llm.url, model: 'test-model', apiKey: 'k-123' });
  t.ok(out.ok);
  t.equal(out.planner, 'llm');
  if (out.ok) {
    t.equal(out.plan.groups.length, 3);
    t.equal(resolvePlan(out.plan).length, 12);
  }
  t.equal(llm.requests.length, 1);
  const sent = llm.requests[0]!;
  t.equal(sent.path, '/v1/chat/completions');
  t.equal(sent.auth, 'Bearer k-123');
  t.equal(sent.body.model, 'test-model');
  t.equal(sent.body.response_format.type, 'json_schema');
  t.same(sent.body.response_format.json_schema.schema.properties.groups.items.properties.resource.enum, ['customer', 'charge', 'subscription', 'product']);
  t.equal(sent.body.messages[1].content, PROMPT);

  const direct = await planSeed({ twin: 'stripe', prompt: '3 customers', seeding: stripe }, { url: llm.url, model: 'm' });
  t.equal(direct.planner, 'builtin', 'a prompt the built-in planner reads never reaches the LLM');
  t.equal(llm.requests.length, 1);
});

t.test('LLM planner: an invalid plan or a failing endpoint becomes a failure sentence', async (t) => {
  const bad = await fakeLlm(() => ({
    content: {
      clock_start: null,
      groups: [{ id: 'a', resource: 'invoice', count: 2, within: null, owner: 'zz', state: 'exploded', attributes: [] }],
      pools: [],
    },
  }));
  t.teardown(() => bad.close());
  const out = await planSeed({ twin: 'stripe', prompt: PROMPT, seeding: stripe }, { url: bad.url, model: 'm' });
  t.notOk(out.ok);
  if (!out.ok) {
    t.match(out.failure, /The built-in planner could not use/);
    t.match(out.failure, /refers to 'zz'/);
  }
  const down = await fakeLlm(() => ({ status: 500, content: {} }));
  t.teardown(() => down.close());
  const failed = await planSeed({ twin: 'stripe', prompt: PROMPT, seeding: stripe }, { url: down.url, model: 'm' });
  t.notOk(failed.ok);
  if (!failed.ok) t.match(failed.failure, /The LLM planner failed: The language model answered HTTP 500/);
});
