// The starting workspace "Twin Works": the integration's bot, three people (Ada Lovelace, Grace
// Hopper, Alan Turing), a "Team Home" page at the workspace root with a welcome paragraph, and
// under it a "Tasks" database (one data source: Name, Status, Tags, Assignee, Due, Done, Estimate).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import { newId, type User, type Workspace } from './records.js';

const PEOPLE = [
  { name: 'Ada Lovelace', email: 'ada@example.com' },
  { name: 'Grace Hopper', email: 'grace@example.com' },
  { name: 'Alan Turing', email: 'alan@example.com' },
];

export const BOT_NAME = 'Twins integration';

export function workspace(ctx: TwinContext): Workspace {
  return ctx.store.list<Workspace>('workspace')[0]!;
}

/** The integration's bot user: the author of everything created through the API. */
export function me(ctx: TwinContext): User {
  return ctx.store.list<User>('user').find((u) => u.me)!;
}

export function findUser(ctx: TwinContext, id: string): User {
  const u = ctx.store.get<User>('user', id);
  if (!u) throw notFound('user', id);
  return u;
}

export function userView(ctx: TwinContext, u: User): Record<string, unknown> {
  const base = { object: 'user', id: u.id, name: u.name, avatar_url: u.avatar_url, type: u.type };
  if (u.type === 'person') return { ...base, person: { email: u.email } };
  return {
    ...base,
    bot: { owner: { type: 'workspace', workspace: true }, workspace_name: workspace(ctx).name, workspace_limits: { max_file_upload_size_in_bytes: 5_242_880 } },
  };
}

/** Users in the order Notion lists them: people first, then bots. */
export function listUsers(ctx: TwinContext): User[] {
  const users = ctx.store.list<User>('user');
  return [...users.filter((u) => u.type === 'person'), ...users.filter((u) => u.type === 'bot')];
}

/** Seed the workspace once; `starter` creates the starting pages through the page model. */
export function ensureWorkspace(ctx: TwinContext, starter: (ctx: TwinContext) => void): void {
  if (ctx.store.count('workspace') > 0) return;
  ctx.store.put('workspace', 'workspace', { id: newId(ctx), name: 'Twin Works' } satisfies Workspace);
  const bot: User = { id: newId(ctx), type: 'bot', name: BOT_NAME, avatar_url: null, me: true };
  ctx.store.put('user', bot.id, bot);
  for (const p of PEOPLE) {
    const u: User = { id: newId(ctx), type: 'person', name: p.name, avatar_url: null, email: p.email };
    ctx.store.put('user', u.id, u);
  }
  starter(ctx);
}
