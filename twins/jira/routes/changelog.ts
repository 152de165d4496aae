// An issue's history: `GET /issue/{key}/changelog` (offset pages, oldest first) and
// `POST /issue/{key}/changelog/list` (the entries named by id).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { issueChangelog } from '../model/changelog.js';
import { requireIssue } from '../model/issues.js';
import { changelogView } from '../model/views.js';
import { JiraError } from '../wire/errors.js';
import { intParam, offsetPage } from '../wire/params.js';

const P = '/rest/api/3/issue/{issueIdOrKey}/changelog';
const json = (body: unknown) => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

export const changelogRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: P,
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const page = offsetPage(issueChangelog(ctx, issue.id), intParam(req, 'startAt', 0), intParam(req, 'maxResults', 100, 100) || 100);
      return json({
        self: `${ctx.baseUrl}/rest/api/3/issue/${issue.key}/changelog?maxResults=${page.maxResults}&startAt=${page.startAt}`,
        ...(page.isLast
          ? {}
          : { nextPage: `${ctx.baseUrl}/rest/api/3/issue/${issue.key}/changelog?maxResults=${page.maxResults}&startAt=${page.startAt + page.maxResults}` }),
        maxResults: page.maxResults,
        startAt: page.startAt,
        total: page.total,
        isLast: page.isLast,
        values: page.values.map((c) => changelogView(ctx, c)),
      });
    },
  },
  {
    method: 'POST',
    path: `${P}/list`,
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const ids = req.body.changelogIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000 || !ids.every((x) => typeof x === 'number' || typeof x === 'string'))
        throw new JiraError(400, [], { changelogIds: 'Provide between 1 and 1000 changelog ids.' });
      const wanted = new Set(ids.map(String));
      const found = issueChangelog(ctx, issue.id).filter((c) => wanted.has(c.id));
      return json({ histories: found.map((c) => changelogView(ctx, c)), maxResults: found.length, startAt: 0, total: found.length });
    },
  },
];
