// Slack's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import { A, bodyContains, bodyEq, bodyVar, op, v, type ModifierRule, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

const slackChannel: ModifierRule = (m, value) => {
  // Callers may name a channel with or without '#', or by its id (C…).
  const bare = value.replace(/^#/, '');
  m.body = { ...(m.body ?? {}), '/channel': /^[CGD][A-Z0-9]{6,}$/.test(bare) ? bare : { one_of: [`#${bare}`, bare] } };
};

export const SLACK_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'slack',
    label: 'post a message',
    phrase: op(`(?:${v('post')}|${v('send', 'sent')}|${v('write', 'wrote', 'written')})\\s+${A}(?:messages?|replies|reply)|${v('reply', 'replied')}`),
    method: 'POST',
    path: '/api/chat.postMessage',
    modifiers: { channel: slackChannel, text: bodyContains('/text'), thread: (m) => void (m.body = { ...(m.body ?? {}), '/thread_ts': { present: true } }) },
    produces: { noun: 'message', capture: 'response.body/ts' },
    refers: { message: bodyVar('/thread_ts'), thread: bodyVar('/thread_ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'update a message',
    phrase: op(`(?:${v('update')}|${v('edit')})\\s+${A}messages?`),
    method: 'POST',
    path: '/api/chat.update',
    modifiers: { channel: slackChannel, text: bodyContains('/text') },
    refers: { message: bodyVar('/ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'delete a message',
    phrase: op(`${v('delete')}\\s+${A}messages?`),
    method: 'POST',
    path: '/api/chat.delete',
    modifiers: { channel: slackChannel },
    refers: { message: bodyVar('/ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'add a reaction',
    phrase: op(`${v('react')}(?:\\s+to\\s+${A}messages?)?|${v('add')}\\s+${A}reactions?(?:\\s+to\\s+${A}messages?)?`),
    method: 'POST',
    path: '/api/reactions.add',
    modifiers: { emoji: bodyEq('/name'), channel: slackChannel },
    refers: { message: bodyVar('/timestamp') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'create a channel',
    phrase: op(`${v('create')}\\s+${A}channels?`),
    method: 'POST',
    path: '/api/conversations.create',
    modifiers: {
      name: (m, value) => void (m.body = { ...(m.body ?? {}), '/name': value.replace(/^#/, '') }),
      channel: (m, value) => void (m.body = { ...(m.body ?? {}), '/name': value.replace(/^#/, '') }),
    },
    produces: { noun: 'channel', capture: 'response.body/channel/id' },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'archive a channel',
    phrase: op(`${v('archive')}\\s+${A}channels?`),
    method: 'POST',
    path: '/api/conversations.archive',
    modifiers: { channel: slackChannel },
    refers: { channel: bodyVar('/channel') },
    successBody: { '/ok': true },
  },
];
