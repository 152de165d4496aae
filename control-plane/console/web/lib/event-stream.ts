// The text/event-stream format (HTML Living Standard, server-sent events), parsed from text
// chunks as they arrive. Pure, so it is tested without a browser.

export interface StreamEvent {
  event: string;
  data: string;
  id?: string;
}

/** Parse complete events out of `buffer`; returns the unparsed rest. */
export function parseEvents(buffer: string, emit: (e: StreamEvent) => void, onRetry?: (ms: number) => void): string {
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry?.(Number(value));
    }
    if (data.length > 0) emit({ event, data: data.join('\n'), id });
  }
  return rest;
}
