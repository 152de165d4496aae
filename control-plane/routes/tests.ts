// Routes of the 'tests' area: outcomes compiled once into matcher-language assertions (or sent as
// explicit assertions), and attempts that judge a window of an environment's traffic at once.

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conflict, notFound, paymentRequired } from '../http/errors.js';
import { errorResponses, noContent } from '../http/responses.js';
import { dateTimeString, uuidString } from '../http/fields.js';
import { pageEnvelope, pageQuery, paginate } from '../http/pagination.js';
import { issuesToEntries, RequestValidationError, type ValidationEntry } from '../http/validation.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { twinSlug } from '../orchestration/schemas.js';
import { llmConfigFromEnv } from '../../seeds/llm-client.js';
import { planNamed } from '../billing/plans.js';
import { TestStore, type TestRecord } from '../store/tests.js';
import { AttemptStore, type AttemptRecord } from '../store/attempts.js';
import { MATCHER_VERSION, assertionSchemaFor, normalizeAssertion, type Assertion, type AssertionInput } from '../testing/matcher-language.js';
import { checkAssertions, type PatternChecker } from '../testing/assertion-checks.js';
import { compileOutcome } from '../testing/compile-outcome.js';

const tags = ['tests'];

const testSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    outcome: z.string().nullable(),
    twins: z.array(z.string()),
    status: z.enum(['ready', 'failed']),
    assertions: z.array(z.record(z.string(), z.unknown())),
    failure: z.string().nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Test' });

const attemptSchema = z
  .object({
    id: z.uuid(),
    test_id: z.uuid(),
    environment_id: z.uuid(),
    from: z.string().meta({ format: 'date-time' }),
    to: z.string().meta({ format: 'date-time' }),
    passed: z.boolean(),
    results: z.array(z.record(z.string(), z.unknown())),
    evaluated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Attempt' });

const createTestBody = z.strictObject({
  name: z.string().min(1).max(200),
  twins: z.array(twinSlug()).min(1).max(TWIN_SLUGS.length),
  outcome: z.string().min(1).max(4000).optional(),
  assertions: z.array(z.unknown()).min(1).max(100).optional(),
});
const createAttemptBody = z.strictObject({
  environment_id: uuidString(),
  from: dateTimeString().optional(),
  to: dateTimeString().optional(),
});
const testParams = z.object({ test_id: uuidString() });
const attemptParams = z.object({ test_id: uuidString(), attempt_id: uuidString() });

const toTest = (t: TestRecord) => ({
  id: t.id,
  name: t.name,
  outcome: t.outcome,
  twins: t.twins,
  status: t.status,
  assertions: t.assertions as unknown as Record<string, unknown>[],
  failure: t.failure,
  created_at: t.created_at,
});

const toAttempt = (a: AttemptRecord) => ({
  id: a.id,
  test_id: a.test_id,
  environment_id: a.environment_id,
  from: a.from,
  to: a.to,
  passed: a.passed,
  results: a.results as unknown as Record<string, unknown>[],
  evaluated_at: a.evaluated_at,
});

/** Explicit assertions: the matcher language's shape, then the twins' routes; 422 entries per field. */
async function explicitAssertions(raw: unknown[], twins: string[], body: unknown, checkPatterns: PatternChecker): Promise<Assertion[]> {
  const entries: ValidationEntry[] = [];
  const parsed: AssertionInput[] = [];
  raw.forEach((item, i) => {
    const r = assertionSchemaFor(item).safeParse(item);
    if (r.success) parsed.push(r.data as AssertionInput);
    else
      entries.push(
        ...issuesToEntries(
          r.error.issues.map((x) => ({ ...x, path: ['assertions', i, ...x.path] })),
          'body',
          body,
        ),
      );
  });
  if (entries.length > 0) throw new RequestValidationError(entries);
  const assertions = parsed.map((a) => normalizeAssertion(a, twins));
  const problems = await checkAssertions(assertions, twins, checkPatterns);
  if (problems.length > 0) {
    throw new RequestValidationError(
      problems.map((p) => ({
        type: 'value_error',
        loc: ['body', 'assertions', p.index, ...p.at.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s))],
        msg: `Value error, ${p.message}`,
        input: raw[p.index],
        ctx: { error: p.message },
      })),
    );
  }
  return assertions;
}

/** Window bounds compare as strings against the gateway's `toISOString()` timestamps. */
const instant = (iso: string) => new Date(iso).toISOString();

const routes: FastifyPluginAsyncZod = async (app) => {
  const tests = new TestStore(app.services.db);
  const attempts = new AttemptStore(app.services.db);

  app.post(
    '/tests',
    {
      schema: {
        tags,
        operationId: 'createTest',
        summary: 'Create a test from an outcome in words or from explicit assertions',
        description:
          'An outcome in words is compiled into request matchers (AI generation: 402 when the plan has none); explicit assertions are checked and stored as given.',
        body: createTestBody,
        response: { 201: testSchema, ...errorResponses(401, 402) },
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const body = req.body;
      const twins = [...new Set(body.twins)];
      const base = {
        id: randomUUID(),
        organization_id: orgId,
        name: body.name,
        outcome: body.outcome ?? null,
        twins,
        matcher_version: MATCHER_VERSION,
        created_at: new Date().toISOString(),
      };
      if (body.assertions) {
        const assertions = await explicitAssertions(body.assertions, twins, body, app.services.judges.checkPatterns);
        const test: TestRecord = { ...base, status: 'ready', assertions, compiler: 'explicit', failure: null };
        tests.create(test);
        return reply.status(201).send(toTest(test));
      }
      if (body.outcome === undefined) {
        throw new RequestValidationError([{ type: 'missing', loc: ['body', 'outcome'], msg: 'Field required', input: body }]);
      }
      const org = app.services.identity.organization(orgId);
      if (!planNamed(org?.plan ?? 'free').aiGenerationEnabled) {
        throw paymentRequired(
          'Compiling an outcome in words needs AI generation, which the current plan does not include; upgrade to pay as you go, or send explicit assertions.',
        );
      }
      const compiled = await compileOutcome(body.outcome, twins, llmConfigFromEnv(process.env), app.services.judges.checkPatterns);
      const test: TestRecord = compiled.ok
        ? { ...base, status: 'ready', assertions: compiled.assertions, compiler: compiled.compiler, failure: null }
        : { ...base, status: 'failed', assertions: [], compiler: 'phrasebook', failure: compiled.failure };
      tests.create(test);
      return reply.status(201).send(toTest(test));
    },
  );

  app.get(
    '/tests',
    {
      schema: {
        tags,
        operationId: 'listTests',
        summary: 'List tests (newest first)',
        description: "The organization's tests, newest first (paged).",
        querystring: pageQuery,
        response: { 200: pageEnvelope(testSchema), ...errorResponses(401) },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      return paginate(req.query, tests.count(orgId), (limit, offset) => tests.list(orgId, limit, offset).map(toTest));
    },
  );

  app.get(
    '/tests/:test_id',
    {
      schema: {
        tags,
        operationId: 'getTest',
        summary: 'Retrieve a test',
        description: 'One test by id, with its compiled assertions.',
        params: testParams,
        response: { 200: testSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const t = tests.get(req.principal.orgId, req.params.test_id);
      if (!t) throw notFound(`Test ${req.params.test_id} not found.`);
      return toTest(t);
    },
  );

  app.delete(
    '/tests/:test_id',
    {
      schema: {
        tags,
        operationId: 'deleteTest',
        summary: 'Delete a test',
        description: 'Answers 204 and deletes its attempts.',
        params: testParams,
        response: { 204: noContent, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      if (!tests.delete(req.principal.orgId, req.params.test_id)) throw notFound(`Test ${req.params.test_id} not found.`);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/tests/:test_id/attempts',
    {
      schema: {
        tags,
        operationId: 'createAttempt',
        summary: "Evaluate the test over a window of an environment's traffic",
        description:
          "Evaluates the test's assertions at once over the environment's request log between `from` (default: the environment's creation) and `to` (default: now); each result says why it failed. Judging has a budget (CPU time, requests in the window): assertions past it come back `incomplete` with the reason, and the attempt does not pass.",
        params: testParams,
        body: createAttemptBody,
        response: { 201: attemptSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const test = tests.get(orgId, req.params.test_id);
      if (!test) throw notFound(`Test ${req.params.test_id} not found.`);
      const env = attempts.environment(orgId, req.body.environment_id);
      if (!env) throw notFound(`Environment ${req.body.environment_id} not found.`);
      if (test.status !== 'ready') throw conflict(`Test ${test.id} could not be compiled, so it cannot be evaluated: ${test.failure}`);
      const evaluatedAt = new Date().toISOString();
      const from = instant(req.body.from ?? env.created_at);
      const to = instant(req.body.to ?? evaluatedAt);
      if (to < from) {
        throw new RequestValidationError([
          {
            type: 'value_error',
            loc: ['body', 'to'],
            msg: 'Value error, to must not be earlier than from',
            input: req.body.to ?? null,
            ctx: { error: 'to must not be earlier than from' },
          },
        ]);
      }
      // Judge every request answered so far: entries may still be on their way from the journal.
      await app.services.orchestration.gateway.awaitLogged();
      // A job of the organization (issue 33): its attempts wait behind its other heavy work, never in
      // front of another organization's; judged on a judges' thread within the attempt's budget,
      // which starts once its turn has come (testing/judges.ts).
      const result = await app.services.jobs.run(orgId, 'evaluation', () => app.services.judges.evaluate(test.assertions, { environmentId: env.id, from, to }));
      const attempt: AttemptRecord = {
        id: randomUUID(),
        test_id: test.id,
        organization_id: orgId,
        environment_id: env.id,
        from,
        to,
        passed: result.passed,
        results: result.results,
        evaluated_at: evaluatedAt,
      };
      attempts.create(attempt);
      return reply.status(201).send(toAttempt(attempt));
    },
  );

  app.get(
    '/tests/:test_id/attempts',
    {
      schema: {
        tags,
        operationId: 'listAttempts',
        summary: 'List attempts of a test (newest first)',
        description: 'Earlier evaluations of a test, newest first (paged).',
        params: testParams,
        querystring: pageQuery,
        response: { 200: pageEnvelope(attemptSchema), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const test = tests.get(req.principal.orgId, req.params.test_id);
      if (!test) throw notFound(`Test ${req.params.test_id} not found.`);
      return paginate(req.query, attempts.count(test.id), (limit, offset) => attempts.list(test.id, limit, offset).map(toAttempt));
    },
  );

  app.get(
    '/tests/:test_id/attempts/:attempt_id',
    {
      schema: {
        tags,
        operationId: 'getAttempt',
        summary: 'Retrieve an attempt',
        description: 'One attempt of a test, with the result of each assertion.',
        params: attemptParams,
        response: { 200: attemptSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const test = tests.get(req.principal.orgId, req.params.test_id);
      if (!test) throw notFound(`Test ${req.params.test_id} not found.`);
      const attempt = attempts.get(test.id, req.params.attempt_id);
      if (!attempt) throw notFound(`Attempt ${req.params.attempt_id} not found.`);
      return toAttempt(attempt);
    },
  );
};

export default routes;
