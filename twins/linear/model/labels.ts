// Issue labels: workspace labels (`teamId` null) and team labels; names are unique per scope;
// renamed or recoloured, deleted (the issues that had one lose it).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { stamps, uuid, type Issue, type IssueLabel, type User } from './records.js';
import { emitWebhook } from './webhooks.js';

export function createLabel(
  ctx: TwinContext,
  actor: User,
  input: { name?: string; color?: string | null; description?: string | null; teamId?: string | null },
): IssueLabel {
  if (!input.name || input.name.trim() === '') throw invalidInput('name should not be empty');
  if (input.teamId && !ctx.store.has('team', input.teamId)) throw notFound('Team');
  const teamId = input.teamId ?? null;
  const clash = ctx.store
    .list<IssueLabel>('issue_label')
    .some((l) => l.name.toLowerCase() === input.name!.toLowerCase() && (l.teamId === teamId || l.teamId === null));
  if (clash) throw invalidInput('Duplicate label name');
  const palette = ['#eb5757', '#f2994a', '#f2c94c', '#4cb782', '#4ea7fc', '#5e6ad2', '#bb87fc', '#95a2b3'];
  const label: IssueLabel = {
    id: uuid(ctx),
    ...stamps(ctx),
    name: input.name,
    color: input.color ?? palette[ctx.store.count('issue_label') % palette.length]!,
    description: input.description ?? null,
    teamId,
    isGroup: false,
  };
  ctx.store.put('issue_label', label.id, label);
  emitWebhook(ctx, { type: 'IssueLabel', action: 'create', data: { ...label }, url: '', teamIds: teamId ? [teamId] : [], actor });
  return label;
}

export function updateLabel(
  ctx: TwinContext,
  actor: User,
  id: string,
  input: { name?: string | null; color?: string | null; description?: string | null },
): IssueLabel {
  const label = ctx.store.get<IssueLabel>('issue_label', id);
  if (!label) throw notFound('IssueLabel');
  const name = input.name ?? label.name;
  if (name.trim() === '') throw invalidInput('name should not be empty');
  const clash = ctx.store
    .list<IssueLabel>('issue_label')
    .some((l) => l.id !== label.id && l.name.toLowerCase() === name.toLowerCase() && (l.teamId === label.teamId || l.teamId === null || label.teamId === null));
  if (clash) throw invalidInput('Duplicate label name');
  const from = { name: label.name, color: label.color, description: label.description, updatedAt: label.updatedAt };
  const next: IssueLabel = {
    ...label,
    name,
    color: input.color ?? label.color,
    description: input.description === undefined ? label.description : input.description,
    updatedAt: ctx.clock.now().toISOString(),
  };
  ctx.store.put('issue_label', label.id, next);
  emitWebhook(ctx, { type: 'IssueLabel', action: 'update', data: { ...next }, url: '', teamIds: next.teamId ? [next.teamId] : [], actor, updatedFrom: from });
  return next;
}

/** A label deleted: the issues that had it lose it. */
export function deleteLabel(ctx: TwinContext, actor: User, id: string): void {
  const label = ctx.store.get<IssueLabel>('issue_label', id);
  if (!label) throw notFound('IssueLabel');
  for (const issue of ctx.store.list<Issue>('issue').filter((i) => i.labelIds.includes(id))) {
    ctx.store.put('issue', issue.id, { ...issue, labelIds: issue.labelIds.filter((l) => l !== id) });
  }
  ctx.store.delete('issue_label', id);
  emitWebhook(ctx, { type: 'IssueLabel', action: 'remove', data: { ...label }, url: '', teamIds: label.teamId ? [label.teamId] : [], actor });
}
