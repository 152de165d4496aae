// Issue labels: workspace labels (`teamId` null) and team labels; names are unique per scope.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { stamps, uuid, type IssueLabel, type User } from './records.js';
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
