// The language-model compiler: for outcomes the phrasebook cannot read, ask an OpenAI-compatible
// model (the same adapter seeds use) to write matcher-language assertions once. Its answer is
// treated as untrusted input: parsed, validated and route-checked exactly like explicit assertions.

import { chatJson, LlmError, type LlmConfig } from '../../seeds/llm-client.js';
import { assertionsSchema, normalizeAssertion } from './matcher-language.js';
import { phrasebookOperations, type Operation } from './phrasebook-operations.js';
import { checkAssertions, type PatternChecker } from './assertion-checks.js';
import type { CompileResult } from './phrasebook.js';
import { parseJson } from '../../twin-runtime/safe-input.js';

const ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['assertions_json', 'failure'],
  properties: {
    // A JSON string: strict structured output cannot express the recursive operator grammar.
    assertions_json: { type: 'string', description: 'JSON array of matcher-language assertions; "[]" when failing' },
    failure: { type: ['string', 'null'], description: 'one sentence saying why the outcome cannot be checked from HTTP traffic, else null' },
  },
} as const;

function systemPrompt(twins: string[], known: readonly Operation[]): string {
  const operations = known
    .filter((o) => twins.includes(o.twin))
    .map((o) => `- ${o.twin}: ${o.label} → ${o.method} ${Array.isArray(o.path) ? o.path.join(' or ') : o.path}`)
    .join('\n');
  return `You turn a sentence describing what an agent should have done against provider APIs into assertions over the HTTP requests the agent made.
Answer with assertions_json: a JSON array, each item one of
  {"says": "<the part of the sentence>", "count": {"at_least"|"at_most"|"exactly": n} or {"between": [a, b]}, "match": MATCHER}
  {"says": "...", "never": MATCHER}
  {"says": "...", "sequence": [{"match": MATCHER, "capture": {"name": "response.body/<pointer>"}}, ...]}
MATCHER keys: twin (one of ${twins.join(', ')}), method, path (exact or template with {name} segments), params {segment: OP},
query {name: OP}, headers {name: OP}, body {"/json/pointer": OP}, response {status: 200 | "2xx" | [200, 201], body {"/pointer": OP}}.
OP is a bare value (equality) or one of {"eq"}, {"ne"}, {"one_of": [...]}, {"contains"}, {"matches": "regex"}, {"present": true},
{"absent": true}, {"gt"|"gte"|"lt"|"lte": n}, {"json_subset": {...}}, {"size": OP}, {"includes": OP}, {"all_of": [OP]}, {"any_of": [OP]}, {"not": OP}.
A value captured by an earlier sequence step is written {"var": "name"}. Stripe amounts are integers in minor units (cents).
Use only real provider routes. Known operations:
${operations}
If the sentence cannot be checked from the requests alone, answer assertions_json "[]" and a one-sentence failure.`;
}

export async function compileWithLlm(config: LlmConfig, outcome: string, twins: string[], checkPatterns?: PatternChecker): Promise<CompileResult> {
  let answer: unknown;
  try {
    answer = await chatJson(config, {
      system: systemPrompt(twins, await phrasebookOperations()),
      user: outcome,
      schemaName: 'test_assertions',
      schema: ANSWER_SCHEMA as unknown as Record<string, unknown>,
    });
  } catch (e) {
    if (e instanceof LlmError) return { ok: false, failure: e.message };
    throw e;
  }
  const a = answer as { assertions_json?: unknown; failure?: unknown };
  if (typeof a?.failure === 'string' && a.failure.trim() !== '')
    return { ok: false, failure: `The language model could not compile the outcome: ${a.failure.trim()}` };
  if (typeof a?.assertions_json !== 'string') return { ok: false, failure: 'The language model answered without assertions.' };
  let raw: unknown;
  try {
    raw = parseJson(a.assertions_json);
  } catch {
    return { ok: false, failure: 'The language model answered with assertions that are not valid JSON.' };
  }
  const parsed = assertionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      failure: `The language model wrote assertions that do not fit the matcher language (at ${issue.path.join('.') || 'the top level'}: ${issue.message}).`,
    };
  }
  const assertions = parsed.data.map((x) => normalizeAssertion(x, twins));
  const problems = await checkAssertions(assertions, twins, checkPatterns);
  if (problems.length > 0) {
    const p = problems[0]!;
    return {
      ok: false,
      failure: `The language model wrote an assertion the twins cannot satisfy (assertion ${p.index + 1}, "${assertions[p.index]!.says}"): ${p.message}`,
    };
  }
  return { ok: true, assertions };
}
