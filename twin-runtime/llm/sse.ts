// Server-sent events as the model providers send them. The whole stream is rendered at once (the
// answer is known when the request arrives); clients read it event by event all the same.

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;

/** `event: <name>` (when named) and `data: <json>`, then a blank line. */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}
