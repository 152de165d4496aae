// What the LLM twins' framework tests share: both twins started in-process, and scripting a rule
// through the twin-only helper with the twin's own credential header.

import { startTwin, type RunningTwin } from '../../helpers/twin.js';

export type LlmSlug = 'openai' | 'anthropic';

export function authHeaders(slug: LlmSlug, apiKey: string): Record<string, string> {
  return slug === 'openai' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };
}

/** POST /v1/twin/scripted_responses; the answer's status and body (a refusal is returned, not thrown). */
export async function postScript(twin: RunningTwin, slug: LlmSlug, fields: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${twin.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { ...authHeaders(slug, twin.apiKey), 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Add a rule; a refusal fails the test that needed it. */
export async function script(twin: RunningTwin, slug: LlmSlug, fields: unknown): Promise<void> {
  const { status, body } = await postScript(twin, slug, fields);
  if (status !== 200) throw new Error(`scripting failed: ${status} ${JSON.stringify(body)}`);
}

export async function startLlmTwins(): Promise<Record<LlmSlug, RunningTwin>> {
  const [openai, anthropic] = await Promise.all([startTwin('openai'), startTwin('anthropic')]);
  return { openai, anthropic };
}
