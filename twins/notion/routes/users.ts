// Users: list (people first, then bots), the token's bot user, one user by id.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { pageRequest, paginate, pathId } from '../wire/params.js';
import { findUser, listUsers, me, userView } from '../model/workspace.js';

export const userRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/users',
    handler: (req, ctx) => ({
      status: 200,
      body: paginate(
        listUsers(ctx),
        pageRequest(req),
        (u) => u.id,
        (u) => userView(ctx, u),
        'user',
      ),
    }),
  },
  { method: 'GET', path: '/v1/users/me', handler: (_req, ctx) => ({ status: 200, body: userView(ctx, me(ctx)) }) },
  { method: 'GET', path: '/v1/users/{user_id}', handler: (req, ctx) => ({ status: 200, body: userView(ctx, findUser(ctx, pathId(req, 'user_id'))) }) },
];
