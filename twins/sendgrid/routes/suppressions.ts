// The bounce list, as the Suppressions API answers it (arrays of `{created, email, reason, status}`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { deleteBounce, deleteBounces, getBounce, listBounces } from '../model/suppressions.js';
import { SendGridError, plainError } from '../wire/errors.js';
import { jsonBody, queryParam } from '../wire/params.js';

function unixParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new SendGridError(400, [{ field: name, message: `${name} must be a unix timestamp`, help: null }]);
  return n;
}

const B = '/v3/suppression/bounces';

export const suppressionRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: B,
    handler(req, ctx) {
      const list = listBounces(ctx, unixParam(queryParam(req, 'start_time'), 'start_time'), unixParam(queryParam(req, 'end_time'), 'end_time'));
      const offset = unixParam(queryParam(req, 'offset'), 'offset') ?? 0;
      const limit = Math.min(500, unixParam(queryParam(req, 'limit'), 'limit') ?? 500);
      return { status: 200, body: list.slice(offset, offset + limit) };
    },
  },
  {
    method: 'DELETE',
    path: B,
    handler(req, ctx) {
      deleteBounces(ctx, jsonBody(req));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: `${B}/{email}`,
    handler(req, ctx) {
      const b = getBounce(ctx, req.params.email!);
      return { status: 200, body: b ? [b] : [] };
    },
  },
  {
    method: 'DELETE',
    path: `${B}/{email}`,
    handler(req, ctx) {
      if (!deleteBounce(ctx, req.params.email!)) throw plainError(404, 'resource not found');
      return { status: 204 };
    },
  },
];
