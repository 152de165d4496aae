// Server-sent events read with fetch, so the Authorization header goes with the request (the
// token never appears in a URL, unlike EventSource's query-string workaround). Reconnects after
// the server's `retry` delay with Last-Event-ID, so nothing is missed across a reconnect.

import { accessToken, signOut } from './session.js';
import { parseEvents, type StreamEvent } from './event-stream.js';

export type { StreamEvent };

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface StreamHandlers {
  onEvent(e: StreamEvent): void;
  onState(state: StreamState, detail?: string): void;
}

export function followStream(url: string, handlers: StreamHandlers): () => void {
  const controller = new AbortController();
  let lastId: string | undefined;
  let retryMs = 1000;
  let stopped = false;

  const run = async () => {
    while (!stopped) {
      handlers.onState(lastId === undefined ? 'connecting' : 'reconnecting');
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        const token = accessToken();
        if (token) headers.authorization = `Bearer ${token}`;
        if (lastId !== undefined) headers['last-event-id'] = lastId;
        const res = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
        if (res.status === 401) {
          signOut();
          return;
        }
        if (!res.ok || !res.body) {
          const body = (await res.json().catch(() => ({}))) as { detail?: unknown };
          const detail = typeof body.detail === 'string' ? body.detail : `status ${res.status}`;
          if (res.status === 404) {
            handlers.onState('closed', detail);
            return;
          }
          throw new Error(detail);
        }
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let ended = false;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer = parseEvents(
            buffer + value,
            (e) => {
              if (e.id !== undefined) lastId = e.id;
              if (e.event === 'ready') {
                if (lastId === undefined) lastId = (JSON.parse(e.data) as { cursor: string }).cursor;
                handlers.onState('live');
              } else if (e.event === 'end') {
                const reason = (JSON.parse(e.data) as { reason?: string }).reason;
                if (reason === 'deleted') ended = true;
              }
              handlers.onEvent(e);
            },
            (ms) => {
              retryMs = ms;
            },
          );
        }
        if (ended) {
          handlers.onState('closed', 'The environment was deleted.');
          return;
        }
      } catch (e) {
        if (stopped || controller.signal.aborted) return;
        handlers.onState('reconnecting', (e as Error).message);
      }
      if (stopped) return;
      await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
    handlers.onState('closed');
  };
}
