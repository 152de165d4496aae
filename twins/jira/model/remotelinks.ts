// Remote links of an issue: objects outside Jira (`object.url` and `object.title` required), kept
// per issue; posting one with a `globalId` the issue already has updates that link instead.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, JiraError } from '../wire/errors.js';
import { requireIssue } from './issues.js';
import { numericId, type RemoteLink } from './records.js';

export interface RemoteLinkInput {
  globalId?: unknown;
  relationship?: unknown;
  application?: unknown;
  object?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkedObject(value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw fieldError('object', "'object' is required.");
  if (typeof value.url !== 'string' || !URL.canParse(value.url)) throw fieldError('url', "'url' is required and must be a URL.");
  if (typeof value.title !== 'string' || value.title.trim() === '') throw fieldError('title', "'title' is required.");
  return value;
}

const optionalText = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export function issueRemoteLinks(ctx: TwinContext, idOrKey: string): RemoteLink[] {
  const issue = requireIssue(ctx, idOrKey);
  return ctx.store
    .list<RemoteLink>('remote_link')
    .filter((l) => l.issueId === issue.id)
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/** The created link and `true`, or the link its `globalId` named, updated, and `false`. */
export function saveRemoteLink(ctx: TwinContext, idOrKey: string, input: RemoteLinkInput): { link: RemoteLink; created: boolean } {
  const issue = requireIssue(ctx, idOrKey);
  const object = checkedObject(input.object);
  const globalId = optionalText(input.globalId);
  const existing = globalId ? issueRemoteLinks(ctx, issue.id).find((l) => l.globalId === globalId) : undefined;
  const link: RemoteLink = {
    id: existing?.id ?? numericId(ctx, 'remote_link'),
    issueId: issue.id,
    globalId,
    relationship: optionalText(input.relationship),
    application: isObject(input.application) ? input.application : null,
    object,
  };
  ctx.store.put('remote_link', link.id, link);
  return { link, created: !existing };
}

export function requireRemoteLink(ctx: TwinContext, idOrKey: string, linkId: string): RemoteLink {
  const link = issueRemoteLinks(ctx, idOrKey).find((l) => l.id === linkId);
  if (!link) throw new JiraError(404, [`No remote link with id '${linkId}' exists on this issue.`]);
  return link;
}

export function updateRemoteLink(ctx: TwinContext, idOrKey: string, linkId: string, input: RemoteLinkInput): RemoteLink {
  const link = requireRemoteLink(ctx, idOrKey, linkId);
  const next: RemoteLink = {
    ...link,
    object: checkedObject(input.object),
    globalId: input.globalId === undefined ? link.globalId : optionalText(input.globalId),
    relationship: input.relationship === undefined ? link.relationship : optionalText(input.relationship),
    application: input.application === undefined ? link.application : isObject(input.application) ? input.application : null,
  };
  ctx.store.put('remote_link', link.id, next);
  return next;
}
