// Streamed answers as OpenAI sends them. Chat completions: `data: {chat.completion.chunk}` lines —
// the role first, then content (or tool-call argument) deltas, a last chunk with the finish
// reason, a usage chunk when `stream_options.include_usage`, then `data: [DONE]`. The Responses
// API: named events (`response.created` … `response.completed`) with a `sequence_number`.

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { textChunks } from '../../../twin-runtime/llm/answer.js';
import { fragments } from '../../../twin-runtime/llm/determinism.js';
import { sseEvent, SSE_HEADERS } from '../../../twin-runtime/llm/sse.js';
import type { ChatOutcome } from '../model/chat-completions.js';
import type { OutputItem, ResponseObject } from '../model/responses.js';

export function sse(body: string): TwinResponse {
  return { status: 200, headers: { ...SSE_HEADERS }, body };
}

export function chatCompletionStream(outcome: ChatOutcome, includeUsage: boolean): string {
  const c = outcome.completion;
  const base = {
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    service_tier: c.service_tier,
    system_fingerprint: c.system_fingerprint,
  };
  const out: string[] = [];
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null) =>
    out.push(sseEvent({ ...base, choices: [{ index, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) }));
  outcome.answers.forEach((a, index) => {
    if (a.toolCalls.length > 0) {
      a.toolCalls.forEach((call, i) => {
        const opening = { index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
        chunk(index, i === 0 ? { role: 'assistant', content: null, tool_calls: [opening], refusal: null } : { tool_calls: [opening] }, null);
        for (const part of fragments(call.arguments)) chunk(index, { tool_calls: [{ index: i, function: { arguments: part } }] }, null);
      });
    } else {
      chunk(index, { role: 'assistant', content: '', refusal: null }, null);
      const text = a.text ?? '';
      for (const piece of textChunks({ text, chunks: a.finish === 'length' ? undefined : a.chunks })) chunk(index, { content: piece }, null);
    }
    chunk(index, {}, a.finish);
  });
  if (includeUsage) out.push(sseEvent({ ...base, choices: [], usage: c.usage }));
  out.push('data: [DONE]\n\n');
  return out.join('');
}

/** The item as it first appears in a stream (in progress, empty). */
function openingItem(item: OutputItem): OutputItem {
  if (item.type === 'function_call') return { ...item, status: 'in_progress', arguments: '' };
  return { ...item, status: 'in_progress', content: [] };
}

export function responseStream(final: ResponseObject, chunks: Map<string, string[] | undefined>): string {
  let seq = 0;
  const out: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => out.push(sseEvent({ type, sequence_number: seq++, ...fields }, type));
  const pending: ResponseObject = { ...final, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  final.output.forEach((item, output_index) => {
    emit('response.output_item.added', { output_index, item: openingItem(item) });
    if (item.type === 'function_call') {
      for (const delta of fragments(item.arguments)) emit('response.function_call_arguments.delta', { item_id: item.id, output_index, delta });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index, name: item.name, arguments: item.arguments });
    } else {
      item.content.forEach((part, content_index) => {
        emit('response.content_part.added', { item_id: item.id, output_index, content_index, part: { ...part, text: '' } });
        for (const delta of textChunks({ text: part.text, chunks: chunks.get(item.id) })) {
          emit('response.output_text.delta', { item_id: item.id, output_index, content_index, delta, logprobs: [] });
        }
        emit('response.output_text.done', { item_id: item.id, output_index, content_index, text: part.text, logprobs: [] });
        emit('response.content_part.done', { item_id: item.id, output_index, content_index, part });
      });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return out.join('');
}
