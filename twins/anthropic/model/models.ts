// Models: the list (newest first, paged by before_id/after_id) and one model, as ModelInfo.

import { CLAUDE_MODELS, claudeModel, type ClaudeModel } from '../spec/models.js';
import { AnthropicError, invalid } from '../wire/errors.js';

function info(m: ClaudeModel) {
  return {
    type: 'model' as const,
    id: m.id,
    display_name: m.display_name,
    created_at: m.created_at,
    max_input_tokens: m.max_input_tokens,
    max_tokens: m.max_tokens,
  };
}

export function listModels(page: { limit: number; afterId?: string; beforeId?: string }) {
  const all = [...CLAUDE_MODELS].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  let start = 0;
  let end = all.length;
  if (page.afterId !== undefined) {
    const at = all.findIndex((m) => m.id === page.afterId);
    if (at === -1) throw invalid(`after_id: model ${page.afterId} not found`);
    start = at + 1;
  }
  if (page.beforeId !== undefined) {
    const at = all.findIndex((m) => m.id === page.beforeId);
    if (at === -1) throw invalid(`before_id: model ${page.beforeId} not found`);
    end = at;
    start = Math.max(start, end - page.limit);
  }
  const data = all.slice(start, Math.min(end, start + page.limit)).map(info);
  return {
    data,
    has_more: page.beforeId !== undefined ? start > 0 : start + page.limit < end,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
  };
}

export function retrieveModel(id: string) {
  const m = claudeModel(id);
  if (!m) throw new AnthropicError(404, `model: ${id}`, 'not_found_error');
  return info(m);
}
