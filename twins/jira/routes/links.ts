// Issue links: `POST /issueLink`, `GET|DELETE /issueLink/{linkId}`, and the site's default link
// types (`GET /issueLinkType`, `GET /issueLinkType/{issueLinkTypeId}`).

import type { TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { createLink, findLinkType, requireLink } from '../model/links.js';
import { LINK_TYPES } from '../model/records.js';
import { issueLinkView, linkTypeView } from '../model/views.js';
import { JiraError } from '../wire/errors.js';

const P = '/rest/api/3';
const json = (body: unknown): TwinResponse => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

export const linkRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: `${P}/issueLink`,
    handler(req, ctx) {
      createLink(ctx, req.body);
      return { status: 201 };
    },
  },
  { method: 'GET', path: `${P}/issueLink/{linkId}`, handler: (req, ctx) => json(issueLinkView(ctx, requireLink(ctx, req.params.linkId!))) },
  {
    method: 'DELETE',
    path: `${P}/issueLink/{linkId}`,
    handler(req, ctx) {
      ctx.store.delete('issue_link', requireLink(ctx, req.params.linkId!).id);
      return { status: 204 };
    },
  },
  { method: 'GET', path: `${P}/issueLinkType`, handler: (_req, ctx) => json({ issueLinkTypes: LINK_TYPES.map((t) => linkTypeView(ctx, t)) }) },
  {
    method: 'GET',
    path: `${P}/issueLinkType/{issueLinkTypeId}`,
    handler(req, ctx) {
      const t = findLinkType({ id: req.params.issueLinkTypeId });
      if (!t) throw new JiraError(404, [`No issue link type with id '${req.params.issueLinkTypeId}' exists.`]);
      return json(linkTypeView(ctx, t));
    },
  },
];
