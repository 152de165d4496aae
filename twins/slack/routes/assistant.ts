// assistant.threads.* and chat.*Stream; twin.assistant.start (a person opens the assistant).

import { SlackError, invalidArguments } from '../wire/errors.js';
import type { MethodTable } from '../wire/method.js';
import { appendStream, changeThread, findThread, startStream, startThread, stopStream, streamText } from '../model/assistant.js';
import { resolveMemberConversation } from '../model/conversations.js';
import { messageView } from '../model/messages.js';
import type { Message } from '../model/records.js';
import { getUser } from '../model/workspace.js';
import { isTs } from '../model/slack-ids.js';

export const assistantMethods: MethodTable = {
  'twin.assistant.start': ({ ctx, args }) => {
    const id = args.string('user');
    const u = id ? getUser(ctx, id) : undefined;
    if (!u || u.deleted || u.is_bot) throw new SlackError('user_not_found');
    const t = startThread(ctx, u, args.string('context_channel'));
    return { channel: t.channel, thread_ts: t.thread_ts };
  },

  'assistant.threads.setStatus': ({ ctx, args }) => {
    const t = findThread(ctx, args.string('channel_id'), args.string('thread_ts'));
    const status = args.string('status') ?? '';
    if (args.raw('status') === undefined) throw invalidArguments('missing required field: status');
    const loading = args.list('loading_messages');
    if (loading.length > 10) throw invalidArguments('loading_messages must contain at most 10 items');
    changeThread(ctx, t, { status, loading_messages: loading });
    return {};
  },

  'assistant.threads.setSuggestedPrompts': ({ ctx, args }) => {
    const t = findThread(ctx, args.string('channel_id'), args.string('thread_ts'));
    const prompts = args.json('prompts');
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) throw invalidArguments('prompts must be a list of 1 to 4 {title, message}');
    for (const p of prompts) {
      if (!p || typeof p !== 'object' || typeof p.title !== 'string' || typeof p.message !== 'string')
        throw invalidArguments('each prompt needs a title and a message');
    }
    changeThread(ctx, t, {
      suggested_prompts: prompts.map((p: { title: string; message: string }) => ({ title: p.title, message: p.message })),
      prompts_title: args.string('title') ?? '',
    });
    return {};
  },

  'assistant.threads.setTitle': ({ ctx, args }) => {
    const t = findThread(ctx, args.string('channel_id'), args.string('thread_ts'));
    changeThread(ctx, t, { title: args.required('title') });
    return {};
  },

  'chat.startStream': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const threadTs = args.string('thread_ts');
    if (!threadTs) throw invalidArguments('missing required field: thread_ts');
    if (!isTs(threadTs)) throw new SlackError('invalid_thread_ts');
    const text = streamText(args.string('markdown_text'), args.json('chunks', 'invalid_chunks'));
    if (text.length > 12_000) throw new SlackError('msg_too_long');
    return { channel: c.id, ...startStream(ctx, actor, c, threadTs, text) };
  },

  'chat.appendStream': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const ts = args.string('ts');
    const text = streamText(args.string('markdown_text'), args.json('chunks', 'invalid_chunks'));
    appendStream(ctx, actor, c, ts, text);
    return { channel: c.id, ts };
  },

  'chat.stopStream': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const ts = args.string('ts');
    const text = streamText(args.string('markdown_text'), args.json('chunks', 'invalid_chunks'));
    const m = stopStream(ctx, actor, c, ts, text, {
      blocks: args.json('blocks', 'invalid_blocks_format'),
      metadata: args.json('metadata', 'invalid_metadata_format'),
    });
    return { channel: c.id, ts, message: messageView(m as Message) };
  },
};
