// Twin-only methods (no Slack equivalent; never rate limited), for callers without the control
// plane's records API:
//   twin.settings.get  {setting}                 → {setting, value}
//   twin.settings.set  {setting, value: object}  → {setting, value}   (fields merged)
//   twin.messages.postAsUser {user, channel, text|blocks, thread_ts?, reply_broadcast?}
//       a person in the workspace posts (the app receives it as a `message` event)

import { isMember, resolveConversation } from '../model/conversations.js';
import { invalidArguments, SlackError } from '../wire/errors.js';
import { contentError, messageView, postMessage } from '../model/messages.js';
import { SETTING_NAMES, getSetting, updateSetting, type SettingName } from '../model/settings.js';
import { isTs } from '../model/slack-ids.js';
import { getUser } from '../model/workspace.js';
import type { Args } from '../wire/params.js';
import type { MethodTable } from '../wire/method.js';

function settingName(args: Args): SettingName {
  const name = args.string('setting');
  if (!name || !(SETTING_NAMES as readonly string[]).includes(name)) {
    throw new SlackError('invalid_setting', { response_metadata: { messages: [`[ERROR] setting must be one of: ${SETTING_NAMES.join(', ')}`] } });
  }
  return name as SettingName;
}

export const twinMethods: MethodTable = {
  'twin.settings.get': ({ ctx, args }) => {
    const name = settingName(args);
    return { setting: name, value: getSetting(ctx, name) };
  },

  'twin.settings.set': ({ ctx, args }) => {
    const name = settingName(args);
    const value = args.json('value');
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidArguments('value must be a JSON object');
    const result = updateSetting(ctx, name, value as Record<string, unknown>);
    if ('error' in result) throw invalidArguments(result.error);
    return { setting: name, value: result.value };
  },

  'twin.messages.postAsUser': ({ ctx, args }) => {
    const userId = args.string('user');
    const u = userId ? getUser(ctx, userId) : undefined;
    if (!u || u.deleted) throw new SlackError('user_not_found');
    const c = resolveConversation(ctx, args.string('channel'), u.id);
    if (c.is_archived) throw new SlackError('is_archived');
    if (!isMember(ctx, c.id, u.id)) throw new SlackError('not_in_channel');
    const input = {
      text: args.string('text'),
      blocks: args.json('blocks', 'invalid_blocks_format'),
      thread_ts: args.string('thread_ts'),
      reply_broadcast: args.bool('reply_broadcast'),
    };
    const bad = contentError(input);
    if (bad) throw new SlackError(bad);
    if (input.thread_ts !== undefined && !isTs(input.thread_ts)) throw new SlackError('invalid_thread_ts');
    const m = postMessage(ctx, c, u, input);
    return { channel: c.id, ts: m.ts, message: messageView(m) };
  },
};
