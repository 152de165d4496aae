// Email Activity over the mailbox (`/v3/messages`): what the SDK reads back of the mail it sent.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { activityDetail, listActivity } from '../model/activity.js';
import { SendGridError } from '../wire/errors.js';
import { queryParam } from '../wire/params.js';

export const activityRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v3/messages',
    handler(req, ctx) {
      const limit = Number(queryParam(req, 'limit') ?? 10);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new SendGridError(400, [{ field: 'limit', message: 'limit must be an integer from 1 to 1000', help: null }]);
      return { status: 200, body: { messages: listActivity(ctx, queryParam(req, 'query') ?? '', limit) } };
    },
  },
  { method: 'GET', path: '/v3/messages/{msg_id}', handler: (req, ctx) => ({ status: 200, body: activityDetail(ctx, req.params.msg_id!) }) },
];
