// The OpenAI-compatible chat adapter shared by the LLM seed planner and the LLM test compiler.
// TWINS_LLM_URL (base URL, e.g. http://127.0.0.1:11434/v1), TWINS_LLM_MODEL, TWINS_LLM_API_KEY.
// It asks for a JSON-schema response and returns the parsed JSON; callers validate it before use.

import { request } from 'undici';
import { parseJson } from '../twin-runtime/safe-input.js';

export interface LlmConfig {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  if (!env.TWINS_LLM_URL || !env.TWINS_LLM_MODEL) return undefined;
  return { url: env.TWINS_LLM_URL, model: env.TWINS_LLM_MODEL, apiKey: env.TWINS_LLM_API_KEY };
}

export class LlmError extends Error {}

export interface JsonChatRequest {
  system: string;
  user: string;
  /** Name and JSON Schema of the expected answer (sent as `response_format: json_schema`). */
  schemaName: string;
  schema: Record<string, unknown>;
}

export async function chatJson(config: LlmConfig, req: JsonChatRequest): Promise<unknown> {
  const url = config.url.replace(/\/+$/, '') + '/chat/completions';
  let res;
  try {
    res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.model,
        temperature: 0,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        response_format: { type: 'json_schema', json_schema: { name: req.schemaName, schema: req.schema, strict: true } },
      }),
      headersTimeout: config.timeoutMs ?? 60_000,
      bodyTimeout: config.timeoutMs ?? 60_000,
    });
  } catch (e) {
    throw new LlmError(`The language model at ${config.url} could not be reached: ${(e as Error).message}.`);
  }
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) {
    throw new LlmError(`The language model answered HTTP ${res.statusCode}.`);
  }
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    throw new LlmError('The language model answered with a body that is not JSON.');
  }
  if (typeof content !== 'string') throw new LlmError('The language model answered without message content.');
  try {
    return parseJson(content);
  } catch {
    throw new LlmError('The language model did not answer with JSON matching the requested schema.');
  }
}
