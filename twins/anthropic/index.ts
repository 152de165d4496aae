// The Anthropic twin: the Messages API (plain and streamed, tool use, system prompts, structured
// output), token counting, message batches, models, files, skills, Anthropic's errors and headers.
// Answers are scripted (`scripted_response` records) or derived deterministically from the request.
// See twins/anthropic/README.md.

import type { TwinContext, TwinDefinition } from '../../twin-runtime/contract.js';
import { answerInProcess } from '../../twin-runtime/llm/in-process.js';
import { SCRIPTED_RESPONSE } from '../../twin-runtime/llm/scripted.js';
import { advanceBatches, MESSAGE_BATCH, type BatchRequestRunner } from './model/batches.js';
import { FILE } from './model/files.js';
import { SKILL } from './model/skills.js';
import { MEMORY_STORE } from './model/memory-stores.js';
import { VAULT } from './model/vaults.js';
import { routes } from './routes/index.js';
import { generic } from './wire/generic.js';
import { AnthropicError, anthropicErrorResponse, invalid, renderAnthropicError } from './wire/errors.js';
import { aroundAnthropic, authenticateAnthropic } from './wire/protocol.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { ANTHROPIC_OPERATIONS } from './vocabulary/phrasebook.js';

export { seeding, suggestions };

/** A batch request answered by POST /v1/messages itself, in-process (same validation, same answers). */
const runBatchRequest =
  (ctx: TwinContext): BatchRequestRunner =>
  (params) => {
    const route = routes.find((r) => r.method === 'POST' && r.path === '/v1/messages')!;
    return answerInProcess(route, { ...(params as Record<string, unknown>), stream: false }, ctx, renderAnthropicError);
  };

/** Console keys: `sk-ant-api03-`, 93 base62 characters and `AA`. */
function mintKey(randomBase62: (length: number) => string): string {
  return `sk-ant-api03-${randomBase62(93)}AA`;
}

const anthropic: TwinDefinition = {
  slug: 'anthropic',
  name: 'Anthropic',
  description:
    'Anthropic API (Messages with streaming, tool use and system prompts, token counting, batches, models, files, skills) with scripted, deterministic answers.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12151,
  resources: [SCRIPTED_RESPONSE, MESSAGE_BATCH, FILE, SKILL, MEMORY_STORE, VAULT],
  mintKey,
  routes,
  generic,
  authenticate: authenticateAnthropic,
  around: aroundAnthropic,
  errors: {
    render: renderAnthropicError,
    routeMiss: (req) => anthropicErrorResponse(new AnthropicError(404, `Not found: ${req.method} ${req.path}`, 'not_found_error')),
    // Not simulated (decisions §15): 501 `api_error`, which `@anthropic-ai/sdk` raises as
    // `InternalServerError`; `x-should-retry: false` keeps it from retrying.
    unsupported: (_req, _ctx, sentence) => anthropicErrorResponse(new AnthropicError(501, sentence, 'api_error', { 'x-should-retry': 'false' })),
    parseFailure(req, _ctx, problem) {
      if (problem.kind === 'malformed_url') return anthropicErrorResponse(new AnthropicError(404, `Not found: ${req.method} ${req.path}`, 'not_found_error'));
      if (problem.refusal.reason === 'body_too_large')
        return anthropicErrorResponse(new AnthropicError(413, 'Request exceeds the maximum allowed number of bytes.', 'request_too_large'));
      return anthropicErrorResponse(invalid(problem.message));
    },
  },
  advance: (ctx, to) => advanceBatches(ctx, to, runBatchRequest(ctx)),
  suggestions,
  seeding,
  phrasebook: ANTHROPIC_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@anthropic-ai/sdk',
        code: [
          "import Anthropic from '@anthropic-ai/sdk';",
          '',
          'const anthropic = new Anthropic({ apiKey: {{api_key}}, baseURL: {{url}} });',
          "const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] });",
        ].join('\n'),
      },
    ],
    env: { ANTHROPIC_API_KEY: '{{api_key}}', ANTHROPIC_BASE_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: { description: 'operations `@anthropic-ai/sdk` calls outside the organization admin API' },
};

export default anthropic;
