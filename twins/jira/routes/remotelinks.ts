// Remote links: `GET|POST|DELETE /issue/{key}/remotelink` (a list, or the one `globalId` names;
// POST creates, 201, or updates by `globalId`, 200) and `GET|PUT|DELETE …/remotelink/{linkId}`.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import type { RemoteLink } from '../model/records.js';
import { issueRemoteLinks, requireRemoteLink, saveRemoteLink, updateRemoteLink } from '../model/remotelinks.js';
import { JiraError } from '../wire/errors.js';
import { param } from '../wire/params.js';

const P = '/rest/api/3/issue/{issueIdOrKey}/remotelink';
const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
const self = (ctx: TwinContext, l: RemoteLink) => `${ctx.baseUrl}/rest/api/3/issue/${l.issueId}/remotelink/${l.id}`;

function view(ctx: TwinContext, l: RemoteLink): Record<string, unknown> {
  return {
    id: Number(l.id),
    self: self(ctx, l),
    ...(l.globalId ? { globalId: l.globalId } : {}),
    ...(l.application ? { application: l.application } : {}),
    ...(l.relationship ? { relationship: l.relationship } : {}),
    object: l.object,
  };
}

function byGlobalId(req: TwinRequest, ctx: TwinContext): RemoteLink | undefined {
  const globalId = param(req, 'globalId');
  if (typeof globalId !== 'string' || globalId === '') return undefined;
  const link = issueRemoteLinks(ctx, req.params.issueIdOrKey!).find((l) => l.globalId === globalId);
  if (!link) throw new JiraError(404, [`No remote link with global id '${globalId}' exists on this issue.`]);
  return link;
}

export const remoteLinkRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: P,
    handler(req, ctx) {
      const one = byGlobalId(req, ctx);
      return json(200, one ? view(ctx, one) : issueRemoteLinks(ctx, req.params.issueIdOrKey!).map((l) => view(ctx, l)));
    },
  },
  {
    method: 'POST',
    path: P,
    handler(req, ctx) {
      const { link, created } = saveRemoteLink(ctx, req.params.issueIdOrKey!, req.body);
      return json(created ? 201 : 200, { id: Number(link.id), self: self(ctx, link) });
    },
  },
  {
    method: 'DELETE',
    path: P,
    handler(req, ctx) {
      const link = byGlobalId(req, ctx);
      if (!link) throw new JiraError(400, ['The globalId query parameter is required.']);
      ctx.store.delete('remote_link', link.id);
      return { status: 204 };
    },
  },
  { method: 'GET', path: `${P}/{linkId}`, handler: (req, ctx) => json(200, view(ctx, requireRemoteLink(ctx, req.params.issueIdOrKey!, req.params.linkId!))) },
  {
    method: 'PUT',
    path: `${P}/{linkId}`,
    handler(req, ctx) {
      updateRemoteLink(ctx, req.params.issueIdOrKey!, req.params.linkId!, req.body);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: `${P}/{linkId}`,
    handler(req, ctx) {
      ctx.store.delete('remote_link', requireRemoteLink(ctx, req.params.issueIdOrKey!, req.params.linkId!).id);
      return { status: 204 };
    },
  },
];
