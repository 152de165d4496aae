// The OpenAI twin: chat completions and the Responses API (plain and streamed), conversations,
// tool calls, structured outputs, embeddings, models, files, uploads, vector stores, batches,
// fine-tuning, evals, containers, skills, images and audio stand-ins, OpenAI's errors and
// rate-limit headers, token usage from a real tokenizer. Answers are scripted (`scripted_response` records) or derived
// deterministically from the request. See twins/openai/README.md.

import type { TwinContext, TwinDefinition } from '../../twin-runtime/contract.js';
import { answerInProcess } from '../../twin-runtime/llm/in-process.js';
import { SCRIPTED_RESPONSE } from '../../twin-runtime/llm/scripted.js';
import { CONTAINER } from './model/containers.js';
import { CONVERSATION } from './model/conversations.js';
import { SKILL } from './model/skills.js';
import { advanceEvals, EVAL } from './model/evals.js';
import { IMAGE } from './model/images.js';
import { advanceFineTuning, FINE_TUNING_JOB } from './model/fine-tuning.js';
import { UPLOAD, UPLOAD_PART } from './model/uploads.js';
import { VECTOR_STORE } from './model/vector-stores.js';
import { advanceBatches, BATCH, type BatchLineRunner } from './model/batches.js';
import { CHAT_COMPLETION } from './model/chat-completions.js';
import { FILE } from './model/files.js';
import { RESPONSE } from './model/responses.js';
import { routes } from './routes/index.js';
import { generic } from './wire/generic.js';
import { errorResponse, invalidRequest, OpenAIError, renderOpenAIError, UNPARSABLE_JSON } from './wire/errors.js';
import { aroundOpenAI, authenticateOpenAI } from './wire/protocol.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { OPENAI_OPERATIONS } from './vocabulary/phrasebook.js';
import { openaiFaultAnswer } from './wire/faults.js';

export { seeding, suggestions };

/** A batch line answered by the endpoint's own route, in-process (same validation, same answers). */
const runBatchLine =
  (ctx: TwinContext): BatchLineRunner =>
  async (endpoint, body) => {
    const route = routes.find((r) => r.method === 'POST' && r.path === endpoint)!;
    const requestId = ctx.ids.nextIn('request', 'req_', 32);
    return { ...(await answerInProcess(route, body as Record<string, unknown>, ctx, renderOpenAIError)), requestId };
  };

/** Project keys: `sk-proj-` and base62 around OpenAI's `T3BlbkFJ` marker. */
function mintKey(randomBase62: (length: number) => string): string {
  return `sk-proj-${randomBase62(74)}T3BlbkFJ${randomBase62(74)}`;
}

const openai: TwinDefinition = {
  slug: 'openai',
  name: 'OpenAI',
  description:
    'OpenAI API (chat completions, Responses and conversations, streaming, tool calls, structured outputs, embeddings, files and uploads, vector stores, batches, fine-tuning, evals, containers, skills, images and audio stand-ins) with scripted, deterministic answers.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12141,
  resources: [
    SCRIPTED_RESPONSE,
    FILE,
    CHAT_COMPLETION,
    RESPONSE,
    BATCH,
    CONVERSATION,
    UPLOAD,
    UPLOAD_PART,
    VECTOR_STORE,
    CONTAINER,
    FINE_TUNING_JOB,
    SKILL,
    IMAGE,
    EVAL,
  ],
  mintKey,
  routes,
  generic,
  faultAnswer: openaiFaultAnswer,
  authenticate: authenticateOpenAI,
  around: aroundOpenAI,
  errors: {
    render: renderOpenAIError,
    routeMiss: (req) => errorResponse(new OpenAIError(404, `Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null, null)),
    // Not simulated (decisions §15): 501, which the `openai` SDK raises as `InternalServerError`;
    // `x-should-retry: false` keeps it from retrying an answer that will not change.
    unsupported: (_req, _ctx, sentence) =>
      errorResponse(new OpenAIError(501, sentence, 'invalid_request_error', null, 'not_supported_by_twin', { 'x-should-retry': 'false' })),
    parseFailure(req, _ctx, problem) {
      if (problem.kind === 'malformed_url') return errorResponse(new OpenAIError(404, `Invalid URL (${req.method} ${req.path})`));
      if (problem.refusal.reason === 'body_too_large')
        return errorResponse(new OpenAIError(413, problem.message, 'invalid_request_error', null, 'request_too_large'));
      return errorResponse(problem.refusal.part === 'body' ? invalidRequest(UNPARSABLE_JSON) : invalidRequest(problem.message));
    },
  },
  advance: async (ctx, to) => {
    await advanceBatches(ctx, to, runBatchLine(ctx));
    advanceFineTuning(ctx, to);
    await advanceEvals(ctx, to, async (body) => await runBatchLine(ctx)('/v1/chat/completions', body));
  },
  suggestions,
  seeding,
  phrasebook: OPENAI_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: 'openai',
        code: [
          "import OpenAI from 'openai';",
          '',
          'const openai = new OpenAI({ apiKey: {{api_key}}, baseURL: {{url:/v1}} });',
          "const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });",
        ].join('\n'),
      },
    ],
    env: { OPENAI_API_KEY: '{{api_key}}', OPENAI_BASE_URL: '{{url:/v1}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: { description: 'operations the `openai` SDK calls outside the organization admin API' },
};

export default openai;
