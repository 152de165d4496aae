// Anthropic's models as its Models API lists them (ids, display names, release dates) with the
// limits its documentation gives: a 200k-token context window and each model's output limit.
// Aliases resolve to the dated model, as the Messages API does in its answer's `model`.

export interface ClaudeModel {
  id: string;
  display_name: string;
  created_at: string;
  max_input_tokens: number;
  max_tokens: number;
  aliases: readonly string[];
}

export const CLAUDE_MODELS: readonly ClaudeModel[] = [
  { id: 'claude-opus-4-5-20251101', display_name: 'Claude Opus 4.5', created_at: '2025-11-24T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000, aliases: ['claude-opus-4-5'] },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000, aliases: ['claude-haiku-4-5'] },
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000, aliases: ['claude-sonnet-4-5'] },
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z', max_input_tokens: 200_000, max_tokens: 32_000, aliases: ['claude-opus-4-1'] },
  { id: 'claude-opus-4-20250514', display_name: 'Claude Opus 4', created_at: '2025-05-22T00:00:00Z', max_input_tokens: 200_000, max_tokens: 32_000, aliases: ['claude-opus-4-0'] },
  { id: 'claude-sonnet-4-20250514', display_name: 'Claude Sonnet 4', created_at: '2025-05-22T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000, aliases: ['claude-sonnet-4-0'] },
  { id: 'claude-3-7-sonnet-20250219', display_name: 'Claude Sonnet 3.7', created_at: '2025-02-24T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000, aliases: ['claude-3-7-sonnet-latest'] },
  { id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z', max_input_tokens: 200_000, max_tokens: 8_192, aliases: ['claude-3-5-haiku-latest'] },
  { id: 'claude-3-haiku-20240307', display_name: 'Claude Haiku 3', created_at: '2024-03-07T00:00:00Z', max_input_tokens: 200_000, max_tokens: 4_096, aliases: [] },
];

const BY_NAME = new Map<string, ClaudeModel>(CLAUDE_MODELS.flatMap((m) => [[m.id, m] as const, ...m.aliases.map((a) => [a, m] as const)]));

export function claudeModel(name: string): ClaudeModel | undefined {
  return BY_NAME.get(name);
}
