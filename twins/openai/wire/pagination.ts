// OpenAI's cursor lists: `{object: 'list', data, first_id, last_id, has_more}`, `after` an id of
// the previous page, `order` by creation (files newest first by default, chat completions oldest).

import { invalidRequest } from './errors.js';

export interface CursorPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** `items` oldest first; the page after `after` in `order`. An unknown `after` is a 400. */
export function cursorPage<T extends { id: string }>(items: T[], q: { limit: number; order: 'asc' | 'desc'; after?: string }): CursorPage<T> {
  const ordered = q.order === 'desc' ? [...items].reverse() : items;
  let start = 0;
  if (q.after !== undefined) {
    const at = ordered.findIndex((i) => i.id === q.after);
    if (at === -1) throw invalidRequest(`No object with id '${q.after}' to page after.`, 'after', 'invalid_value');
    start = at + 1;
  }
  const data = ordered.slice(start, start + q.limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + q.limit < ordered.length,
  };
}
