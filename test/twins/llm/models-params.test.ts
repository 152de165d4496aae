// Every model id the installed SDKs' model types name answers through the official clients, and a
// body parameter the provider does not take is refused with 400 in that provider's own words.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { type APIError as OpenAIAPIError } from 'openai';
import { MODELS } from '../../../twins/openai/spec/models.js';
import { startLlmTwins } from './helpers.js';

const twins = await startLlmTwins();
t.teardown(() => Promise.all([twins.openai.close(), twins.anthropic.close()]));
const anthropic = new Anthropic({ apiKey: twins.anthropic.apiKey, baseURL: twins.anthropic.url, maxRetries: 0 });
const openai = new OpenAI({ apiKey: twins.openai.apiKey, baseURL: `${twins.openai.url}/v1`, maxRetries: 0 });

/** The string literals of an exported union type in an installed package's .d.ts (read here, independently of the generator). */
function modelIds(pkg: string, file: string, typeName: string): string[] {
  const require = createRequire(import.meta.url);
  const dir = join(require.resolve(pkg).split(`/node_modules/${pkg}/`)[0]!, 'node_modules', pkg);
  const sf = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const alias = sf.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === typeName);
  if (!alias || !ts.isUnionTypeNode(alias.type)) throw new Error(`${typeName} not found in ${pkg}/${file}`);
  return alias.type.types.flatMap((u) => (ts.isLiteralTypeNode(u) && ts.isStringLiteral(u.literal) ? [u.literal.text] : []));
}

t.test("every model of @anthropic-ai/sdk's Model type answers 200", async (t) => {
  const ids = modelIds('@anthropic-ai/sdk', 'resources/messages/messages.d.ts', 'Model');
  t.ok(ids.length >= 10, `${ids.length} model ids`);
  const failed: string[] = [];
  for (const model of ids) {
    const res = await anthropic.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    if (res instanceof Error) failed.push(`${model}: ${res.message}`);
    else if ((res as Anthropic.Message).model !== model && !(res as Anthropic.Message).model.startsWith(`${model}-`))
      failed.push(`${model} answered as ${(res as Anthropic.Message).model}`);
  }
  t.same(failed, []);
  for (const id of ids) {
    const info = await anthropic.models.retrieve(id);
    t.ok(info.max_input_tokens! >= 200_000 && info.max_tokens! >= 64_000, `${id}: ${info.max_input_tokens} in, ${info.max_tokens} out`);
  }
});

t.test("every model of the openai SDK's ChatModel and ResponsesModel types that OpenAI serves answers 200", async (t) => {
  const shared = 'resources/shared.d.ts';
  const ids = [...new Set([...modelIds('openai', shared, 'ChatModel'), ...modelIds('openai', shared, 'ResponsesModel')])];
  t.ok(ids.length >= 50, `${ids.length} model ids`);
  const failed: string[] = [];
  const served = ids.filter((id) => MODELS.has(id));
  for (const model of served) {
    const endpoints = MODELS.get(model)!.endpoints;
    const res = endpoints.includes('responses')
      ? await openai.responses.create({ model, input: 'hi' }).catch((e: unknown) => e)
      : await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    if (res instanceof Error) failed.push(`${model}: ${res.message}`);
  }
  t.same(failed, []);
  // Ids the SDK still names that the model catalog (gpt-tokenizer's) does not list are retired or
  // unpublished: they answer OpenAI's own 404, never a made-up success.
  for (const model of ids.filter((id) => !MODELS.has(id))) {
    const err = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    t.equal((err as OpenAIAPIError).status, 404, `${model} is not in the catalog: 404`);
    t.equal((err as OpenAIAPIError).code, 'model_not_found');
  }
  t.comment(`${served.length} of ${ids.length} ids served; not in the catalog: ${ids.filter((id) => !MODELS.has(id)).join(', ')}`);
});

t.test('an unknown parameter is refused by each LLM twin as its provider refuses it', async (t) => {
  const claude = await anthropic.messages
    .create({
      model: 'claude-haiku-4-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_mode: 'deep',
    } as Anthropic.MessageCreateParamsNonStreaming)
    .catch((e: unknown) => e);
  t.ok(claude instanceof Anthropic.BadRequestError, 'BadRequestError');
  t.same((claude as InstanceType<typeof Anthropic.BadRequestError>).error, {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'reasoning_mode: Extra inputs are not permitted' },
    request_id: (claude as InstanceType<typeof Anthropic.BadRequestError>).requestID,
  });
  const counted = await anthropic.messages
    .countTokens({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 } as Anthropic.MessageCountTokensParams)
    .catch((e: unknown) => e);
  t.match((counted as Error).message, /max_tokens: Extra inputs are not permitted/, 'count_tokens takes no max_tokens');

  const chat = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], reasoning_mode: 'deep' } as OpenAI.ChatCompletionCreateParamsNonStreaming)
    .catch((e: unknown) => e);
  t.ok(chat instanceof OpenAI.BadRequestError, 'BadRequestError');
  const e = chat as InstanceType<typeof OpenAI.BadRequestError>;
  t.same(
    [e.status, e.type, e.param, e.code, e.message],
    [400, 'invalid_request_error', 'reasoning_mode', 'unknown_parameter', "400 Unknown parameter: 'reasoning_mode'."],
  );
  const responses = await openai.responses
    .create({ model: 'gpt-4o-mini', input: 'hi', messages: [] } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
    .catch((err: unknown) => err);
  t.equal((responses as OpenAIAPIError).param, 'messages', 'the Responses API takes `input`, not `messages`');
  const embeddings = await openai.embeddings
    .create({ model: 'text-embedding-3-small', input: 'hi', prompt: 'x' } as OpenAI.EmbeddingCreateParams)
    .catch((err: unknown) => err);
  t.equal((embeddings as OpenAIAPIError).status, 400);

  // What the SDKs do send is taken: sampling parameters the Anthropic API documents, streaming options.
  const ok = await anthropic.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
    temperature: 0.5,
    top_k: 5,
    metadata: { user_id: 'u1' },
  } as Anthropic.MessageCreateParamsNonStreaming);
  t.equal(ok.type, 'message');
});
