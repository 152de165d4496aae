// Watchers of an issue: list, add (the body is the account id as a JSON string, the caller when
// empty), remove (`?accountId=`).

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { requireIssue } from '../model/issues.js';
import { userView } from '../model/views.js';
import { addWatcher, issueWatchers, removeWatcher } from '../model/watchers.js';
import { viewer } from '../model/workspace.js';
import { JiraError } from '../wire/errors.js';
import { param } from '../wire/params.js';

const P = '/rest/api/3/issue/{issueIdOrKey}/watchers';

/** jira.js sends the account id as a bare JSON string; no body means the caller. */
function bodyAccountId(req: TwinRequest): string | undefined {
  const text = req.rawBody.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'string' && v !== '') return v;
  } catch {
    // fall through to the refusal
  }
  throw new JiraError(400, ['The request body must be a JSON string: the account id of the user to add as a watcher.']);
}

export const watcherRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: P,
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const watchers = issueWatchers(ctx, issue.id);
      const me = viewer(ctx).accountId;
      return {
        status: 200,
        headers: { 'content-type': 'application/json;charset=UTF-8' },
        body: {
          self: `${ctx.baseUrl}/rest/api/3/issue/${issue.key}/watchers`,
          isWatching: watchers.some((u) => u.accountId === me),
          watchCount: watchers.length,
          watchers: watchers.map((u) => userView(ctx, u)),
        },
      };
    },
  },
  {
    method: 'POST',
    path: P,
    handler(req, ctx) {
      addWatcher(ctx, req.params.issueIdOrKey!, bodyAccountId(req) ?? viewer(ctx).accountId);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: P,
    handler(req, ctx) {
      const accountId = param(req, 'accountId');
      if (typeof accountId !== 'string' || accountId === '') throw new JiraError(400, ['The accountId query parameter is required.']);
      removeWatcher(ctx, req.params.issueIdOrKey!, accountId);
      return { status: 204 };
    },
  },
];
