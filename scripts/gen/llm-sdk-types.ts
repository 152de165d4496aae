// What the installed LLM SDKs' type definitions name, pinned as data for the twins: the model ids of
// `@anthropic-ai/sdk`'s `Model` type, and for each JSON-body operation the body parameters its
// request type declares (the Messages API's and its beta's, the OpenAI endpoints'), so a parameter
// no SDK sends is refused as the providers refuse it. Read from the .d.ts files with the
// TypeScript parser (JSDoc `Header param:` / `Query param:` / `Path param:` members are not body).
// Never edited by hand; after an SDK upgrade:
//
//   node --import=tsx scripts/gen/llm-sdk-types.ts
//
// → twins/anthropic/spec/sdk-types.json, twins/openai/spec/sdk-types.json

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The project's own install of an SDK (its `exports` hide package.json from require.resolve). */
function packageDir(name: string): { dir: string; version: string } {
  const dir = join(ROOT, 'node_modules', name);
  return { dir, version: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version };
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function topLevel<T extends ts.Node>(sf: ts.SourceFile, test: (n: ts.Node) => n is T, name: string): T {
  const found = sf.statements.find((s): s is T & ts.Statement => test(s) && (s as unknown as { name?: ts.Identifier }).name?.text === name);
  if (!found) throw new Error(`${name} not found in ${sf.fileName}`);
  return found;
}

/** The string literals of a union type alias (`export type Model = 'a' | 'b' | (string & {})`). */
function literalUnion(sf: ts.SourceFile, name: string): string[] {
  const alias = topLevel(sf, ts.isTypeAliasDeclaration, name);
  const types = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return types.flatMap((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? [t.literal.text] : []));
}

function isBodyMember(m: ts.TypeElement): boolean {
  const doc = ts
    .getJSDocCommentsAndTags(m)
    .map((d) => (typeof d.comment === 'string' ? d.comment : ''))
    .join(' ')
    .trim();
  return !/^(Header|Query|Path) param:/.test(doc);
}

/** The body members of an interface, with those of the interfaces it extends in the same file. */
function bodyParams(sf: ts.SourceFile, name: string): string[] {
  const decl = topLevel(sf, ts.isInterfaceDeclaration, name);
  const own = decl.members.filter((m) => m.name && isBodyMember(m)).map((m) => (m.name as ts.Identifier).text);
  const inherited = (decl.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(sf))).flatMap((base) => bodyParams(sf, base));
  return [...new Set([...inherited, ...own])].sort();
}

function union(...lists: string[][]): string[] {
  return [...new Set(lists.flat())].sort();
}

function write(relative: string, data: unknown): void {
  writeFileSync(join(ROOT, relative), `${JSON.stringify(data, null, 2)}\n`);
  console.log(`wrote ${relative}`);
}

function anthropic(): void {
  const { dir, version } = packageDir('@anthropic-ai/sdk');
  const messages = parse(join(dir, 'resources/messages/messages.d.ts'));
  const beta = parse(join(dir, 'resources/beta/messages/messages.d.ts'));
  const batches = parse(join(dir, 'resources/messages/batches.d.ts'));
  const betaBatches = parse(join(dir, 'resources/beta/messages/batches.d.ts'));
  write('twins/anthropic/spec/sdk-types.json', {
    source: { package: '@anthropic-ai/sdk', version },
    models: literalUnion(messages, 'Model'),
    bodyParams: {
      // `stream` is declared by the streaming/non-streaming variants of the base.
      'POST /v1/messages': union(bodyParams(messages, 'MessageCreateParamsNonStreaming'), bodyParams(beta, 'MessageCreateParamsNonStreaming')),
      'POST /v1/messages/count_tokens': union(bodyParams(messages, 'MessageCountTokensParams'), bodyParams(beta, 'MessageCountTokensParams')),
      'POST /v1/messages/batches': union(bodyParams(batches, 'BatchCreateParams'), bodyParams(betaBatches, 'BatchCreateParams')),
    },
  });
}

function openai(): void {
  const { dir, version } = packageDir('openai');
  const at = (file: string) => parse(join(dir, 'resources', file));
  const chat = at('chat/completions/completions.d.ts');
  const responses = at('responses/responses.d.ts');
  write('twins/openai/spec/sdk-types.json', {
    source: { package: 'openai', version },
    bodyParams: {
      'POST /v1/chat/completions': bodyParams(chat, 'ChatCompletionCreateParamsNonStreaming'),
      'POST /v1/responses': bodyParams(responses, 'ResponseCreateParamsNonStreaming'),
      'POST /v1/responses/input_tokens': bodyParams(at('responses/input-tokens.d.ts'), 'InputTokenCountParams'),
      'POST /v1/embeddings': bodyParams(at('embeddings.d.ts'), 'EmbeddingCreateParams'),
      'POST /v1/moderations': bodyParams(at('moderations.d.ts'), 'ModerationCreateParams'),
      'POST /v1/batches': bodyParams(at('batches.d.ts'), 'BatchCreateParams'),
      'POST /v1/uploads': bodyParams(at('uploads/uploads.d.ts'), 'UploadCreateParams'),
      'POST /v1/uploads/{upload_id}/complete': bodyParams(at('uploads/uploads.d.ts'), 'UploadCompleteParams'),
      'POST /v1/vector_stores': bodyParams(at('vector-stores/vector-stores.d.ts'), 'VectorStoreCreateParams'),
      'POST /v1/vector_stores/{vector_store_id}': bodyParams(at('vector-stores/vector-stores.d.ts'), 'VectorStoreUpdateParams'),
      'POST /v1/vector_stores/{vector_store_id}/search': bodyParams(at('vector-stores/vector-stores.d.ts'), 'VectorStoreSearchParams'),
      'POST /v1/vector_stores/{vector_store_id}/files': bodyParams(at('vector-stores/files.d.ts'), 'FileCreateParams'),
      'POST /v1/vector_stores/{vector_store_id}/files/{file_id}': bodyParams(at('vector-stores/files.d.ts'), 'FileUpdateParams'),
      'POST /v1/vector_stores/{vector_store_id}/file_batches': bodyParams(at('vector-stores/file-batches.d.ts'), 'FileBatchCreateParams'),
      'POST /v1/containers': bodyParams(at('containers/containers.d.ts'), 'ContainerCreateParams'),
      'POST /v1/containers/{container_id}/files': bodyParams(at('containers/files/files.d.ts'), 'FileCreateParams'),
      'POST /v1/fine_tuning/jobs': bodyParams(at('fine-tuning/jobs/jobs.d.ts'), 'JobCreateParams'),
      'POST /v1/skills/{skill_id}': bodyParams(at('skills/skills.d.ts'), 'SkillUpdateParams'),
      'POST /v1/images/generations': bodyParams(at('images.d.ts'), 'ImageGenerateParamsNonStreaming'),
      'POST /v1/audio/speech': bodyParams(at('audio/speech.d.ts'), 'SpeechCreateParams'),
      'POST /v1/evals': bodyParams(at('evals/evals.d.ts'), 'EvalCreateParams'),
      'POST /v1/evals/{eval_id}': bodyParams(at('evals/evals.d.ts'), 'EvalUpdateParams'),
      'POST /v1/evals/{eval_id}/runs': bodyParams(at('evals/runs/runs.d.ts'), 'RunCreateParams'),
      'POST /v1/fine_tuning/alpha/graders/run': bodyParams(at('fine-tuning/alpha/graders.d.ts'), 'GraderRunParams'),
      'POST /v1/fine_tuning/alpha/graders/validate': bodyParams(at('fine-tuning/alpha/graders.d.ts'), 'GraderValidateParams'),
      'POST /v1/conversations': bodyParams(at('conversations/conversations.d.ts'), 'ConversationCreateParams'),
      'POST /v1/conversations/{conversation_id}': bodyParams(at('conversations/conversations.d.ts'), 'ConversationUpdateParams'),
      'POST /v1/conversations/{conversation_id}/items': bodyParams(at('conversations/items.d.ts'), 'ItemCreateParams'),
    },
  });
}

anthropic();
openai();
