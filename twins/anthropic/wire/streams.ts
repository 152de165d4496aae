// A streamed message as Anthropic sends it: `message_start`, then per content block
// `content_block_start` / `content_block_delta` (text_delta, input_json_delta) /
// `content_block_stop`, a `ping`, `message_delta` with the stop reason and output tokens, and
// `message_stop`; each as `event: <type>` and `data: <json>`.

import { textChunks } from '../../../twin-runtime/llm/answer.js';
import { fragments } from '../../../twin-runtime/llm/determinism.js';
import { sseEvent } from '../../../twin-runtime/llm/sse.js';
import type { MessageOutcome } from '../model/messages.js';

export function messageStream({ message, chunks }: MessageOutcome): string {
  const out: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => out.push(sseEvent({ type, ...fields }, type));
  emit('message_start', {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) emit('ping', {});
      for (const text of textChunks({ text: block.text, chunks })) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      if (index === 0) emit('ping', {});
      for (const partial_json of fragments(JSON.stringify(block.input)))
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit('content_block_stop', { index });
  });
  emit('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage: { input_tokens: message.usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: message.usage.output_tokens },
  });
  emit('message_stop', {});
  return out.join('');
}
