// AI assistant threads: a person opens the app's assistant container (twin.assistant.start) →
// a thread in their IM with the app and an `assistant_thread_started` event; the app sets the
// thread's status, suggested prompts and title, and streams replies with chat.startStream /
// appendStream / stopStream (a message whose markdown grows until the stream stops).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import { imWith, getConversation } from './conversations.js';
import { emitEvent } from './events.js';
import { getMessage, postMessage, updateMessage } from './messages.js';
import type { Conversation, User } from './records.js';
import { botUser, currentTeam } from './workspace.js';

export interface AssistantThread {
  channel: string;
  thread_ts: string;
  user: string;
  context: Record<string, unknown>;
  status: string;
  loading_messages: string[];
  title: string;
  suggested_prompts: { title: string; message: string }[];
  prompts_title: string;
}

function key(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function startThread(ctx: TwinContext, user: User, contextChannel: string | undefined): AssistantThread {
  const bot = botUser(ctx);
  const im = imWith(ctx, bot, user.id);
  const team = currentTeam(ctx);
  const root = postMessage(ctx, im, bot, {
    text: '',
    subtype: 'assistant_app_thread',
    extra: { assistant_app_thread: { title: '', title_blocks: [], artifacts: [], context: {} } },
  });
  const context: Record<string, unknown> = { team_id: team.id, enterprise_id: null };
  if (contextChannel) context.channel_id = contextChannel;
  const thread: AssistantThread = {
    channel: im.id,
    thread_ts: root.ts,
    user: user.id,
    context,
    status: '',
    loading_messages: [],
    title: '',
    suggested_prompts: [],
    prompts_title: '',
  };
  ctx.store.put('assistant_thread', key(im.id, root.ts), thread);
  emitEvent(
    ctx,
    { type: 'assistant_thread_started', assistant_thread: { user_id: user.id, context, channel_id: im.id, thread_ts: root.ts } },
    { channel: im.id },
  );
  return thread;
}

export function findThread(ctx: TwinContext, channel: string | undefined, threadTs: string | undefined): AssistantThread {
  if (!channel) throw new SlackError('channel_not_found');
  if (!threadTs) throw invalidArguments('missing required field: thread_ts');
  const t = ctx.store.get<AssistantThread>('assistant_thread', key(channel, threadTs));
  if (!t) {
    if (!getConversation(ctx, channel)) throw new SlackError('channel_not_found');
    throw new SlackError('invalid_thread_ts');
  }
  return t;
}

export function changeThread(ctx: TwinContext, t: AssistantThread, changes: Partial<AssistantThread>): AssistantThread {
  const next = { ...t, ...changes };
  ctx.store.put('assistant_thread', key(t.channel, t.thread_ts), next);
  return next;
}

/** Markdown carried by `markdown_text` and `chunks` (`{type: 'markdown_text', text}`) of a stream call. */
export function streamText(markdown: string | undefined, chunks: unknown): string {
  let out = markdown ?? '';
  if (chunks !== undefined) {
    if (!Array.isArray(chunks)) throw new SlackError('invalid_chunks');
    for (const c of chunks) {
      if (!c || typeof c !== 'object' || typeof (c as { type?: unknown }).type !== 'string') throw new SlackError('invalid_chunks');
      const chunk = c as { type: string; text?: unknown };
      if (chunk.type === 'markdown_text' && typeof chunk.text === 'string') out += chunk.text;
    }
  }
  return out;
}

const STREAM_META = (channel: string, ts: string) => `slack:stream:${channel}:${ts}`;

export function startStream(ctx: TwinContext, actor: User, c: Conversation, threadTs: string, text: string): { ts: string } {
  const m = postMessage(ctx, c, actor, { text, thread_ts: threadTs });
  ctx.store.setMeta(STREAM_META(c.id, m.ts), 'streaming');
  return { ts: m.ts };
}

function streaming(ctx: TwinContext, c: Conversation, ts: string | undefined): string {
  if (!ts) throw invalidArguments('missing required field: ts');
  const m = getMessage(ctx, c.id, ts);
  if (!m) throw new SlackError('message_not_found');
  if (ctx.store.getMeta(STREAM_META(c.id, ts)) !== 'streaming') throw new SlackError('message_not_in_streaming_state');
  return m.text;
}

export function appendStream(ctx: TwinContext, actor: User, c: Conversation, ts: string | undefined, text: string): void {
  const so = streaming(ctx, c, ts);
  if (text !== '') updateMessage(ctx, c, ts, actor, { text: so + text });
}

export function stopStream(
  ctx: TwinContext,
  actor: User,
  c: Conversation,
  ts: string | undefined,
  text: string,
  extra: { blocks?: unknown; metadata?: unknown },
): Record<string, unknown> {
  const so = streaming(ctx, c, ts);
  ctx.store.setMeta(STREAM_META(c.id, ts!), 'stopped');
  const m = updateMessage(ctx, c, ts, actor, {
    text: so + text,
    ...(extra.blocks !== undefined ? { blocks: extra.blocks } : {}),
    ...(extra.metadata !== undefined ? { metadata: extra.metadata } : {}),
  });
  return m;
}
