// Which token a method takes and which scopes it needs (any one of the listed scopes suffices, as
// Slack's `needed` lists them). A call without one answers `missing_scope` with `needed` and
// `provided`; a token of the wrong kind answers `not_allowed_token_type`.

import { SlackError } from './errors.js';
import type { Identity } from '../model/tokens.js';

const READ = 'channels:read,groups:read,im:read,mpim:read';
const HISTORY = 'channels:history,groups:history,im:history,mpim:history';
const MANAGE = 'channels:manage,groups:write';

const NEEDED: Record<string, string> = {
  'team.info': 'team:read',
  'team.profile.get': 'users.profile:read',
  'users.list': 'users:read',
  'users.info': 'users:read',
  'users.getPresence': 'users:read',
  'users.setPresence': 'users:write',
  'users.lookupByEmail': 'users:read.email',
  'users.conversations': READ,
  'users.profile.get': 'users.profile:read',
  'users.profile.set': 'users.profile:write',
  'conversations.list': READ,
  'conversations.info': READ,
  'conversations.members': READ,
  'conversations.history': HISTORY,
  'conversations.replies': HISTORY,
  'conversations.create': MANAGE,
  'conversations.rename': MANAGE,
  'conversations.archive': MANAGE,
  'conversations.unarchive': MANAGE,
  'conversations.setTopic': MANAGE,
  'conversations.setPurpose': MANAGE,
  'conversations.invite': MANAGE,
  'conversations.kick': MANAGE,
  'conversations.join': 'channels:join',
  'conversations.leave': `${MANAGE},im:write,mpim:write`,
  'conversations.open': `${MANAGE},im:write,mpim:write`,
  'conversations.mark': `${MANAGE},im:write,mpim:write`,
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.delete': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.meMessage': 'chat:write',
  'chat.scheduleMessage': 'chat:write',
  'chat.deleteScheduledMessage': 'chat:write',
  'chat.scheduledMessages.list': 'chat:write',
  'chat.startStream': 'chat:write',
  'chat.appendStream': 'chat:write',
  'chat.stopStream': 'chat:write',
  'chat.unfurl': 'links:write',
  'reactions.add': 'reactions:write',
  'reactions.remove': 'reactions:write',
  'reactions.get': 'reactions:read',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'files.delete': 'files:write',
  'files.sharedPublicURL': 'files:write',
  'files.info': 'files:read',
  'files.list': 'files:read',
  'pins.add': 'pins:write',
  'pins.remove': 'pins:write',
  'pins.list': 'pins:read',
  'bookmarks.add': 'bookmarks:write',
  'bookmarks.edit': 'bookmarks:write',
  'bookmarks.remove': 'bookmarks:write',
  'bookmarks.list': 'bookmarks:read',
  'usergroups.create': 'usergroups:write',
  'usergroups.update': 'usergroups:write',
  'usergroups.disable': 'usergroups:write',
  'usergroups.enable': 'usergroups:write',
  'usergroups.users.update': 'usergroups:write',
  'usergroups.list': 'usergroups:read',
  'usergroups.users.list': 'usergroups:read',
  'reminders.add': 'reminders:write',
  'reminders.delete': 'reminders:write',
  'reminders.complete': 'reminders:write',
  'reminders.info': 'reminders:read',
  'reminders.list': 'reminders:read',
  'emoji.list': 'emoji:read',
  'search.messages': 'search:read',
  'assistant.threads.setStatus': 'assistant:write',
  'assistant.threads.setSuggestedPrompts': 'assistant:write',
  'assistant.threads.setTitle': 'assistant:write',
  'apps.connections.open': 'connections:write',
};

/** Methods only an app-level token may call. */
const APP_TOKEN_METHODS = new Set(['apps.connections.open']);
/** Methods only a user token may call. */
const USER_TOKEN_METHODS = new Set([
  'search.messages',
  'files.sharedPublicURL',
  'users.profile.set',
  'reminders.add',
  'reminders.list',
  'reminders.info',
  'reminders.complete',
  'reminders.delete',
]);
/** Methods any kind of token may call. */
const ANY_TOKEN = new Set(['auth.test', 'auth.revoke']);

/** The scopes `method` needs, comma-joined (undefined: none). */
export function neededScopes(method: string): string | undefined {
  return NEEDED[method];
}

/** Throws Slack's refusal when `who` may not call `method`. */
export function checkAccess(method: string, who: Identity): void {
  // An app-level token only opens Socket Mode connections; it acts as nobody.
  if (who.kind === 'app' && !APP_TOKEN_METHODS.has(method)) throw new SlackError('not_allowed_token_type');
  if (!ANY_TOKEN.has(method)) {
    if (APP_TOKEN_METHODS.has(method) !== (who.kind === 'app')) throw new SlackError('not_allowed_token_type');
    if (USER_TOKEN_METHODS.has(method) && who.kind !== 'user') throw new SlackError('not_allowed_token_type');
  }
  if (who.kind === 'app') return; // app tokens carry connections:write, the only scope their methods need
  const needed = NEEDED[method];
  if (!needed) return;
  if (needed.split(',').some((s) => who.scopes.includes(s))) return;
  throw new SlackError('missing_scope', { needed, provided: who.scopes.join(',') });
}
