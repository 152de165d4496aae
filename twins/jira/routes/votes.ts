// Votes on an issue: `GET|POST|DELETE /issue/{issueIdOrKey}/votes` (the caller's own vote).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { requireIssue } from '../model/issues.js';
import { userView } from '../model/views.js';
import { issueVoters, vote } from '../model/votes.js';
import { viewer } from '../model/workspace.js';

const P = '/rest/api/3/issue/{issueIdOrKey}/votes';

export const voteRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: P,
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const voters = issueVoters(ctx, issue.id);
      return {
        status: 200,
        headers: { 'content-type': 'application/json;charset=UTF-8' },
        body: {
          self: `${ctx.baseUrl}/rest/api/3/issue/${issue.key}/votes`,
          votes: voters.length,
          hasVoted: voters.some((u) => u.accountId === viewer(ctx).accountId),
          voters: voters.map((u) => userView(ctx, u)),
        },
      };
    },
  },
  {
    method: 'POST',
    path: P,
    handler(req, ctx) {
      vote(ctx, req.params.issueIdOrKey!, true);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: P,
    handler(req, ctx) {
      vote(ctx, req.params.issueIdOrKey!, false);
      return { status: 204 };
    },
  },
];
