// /v1/test_helpers/test_clocks: create, retrieve, delete, list, advance.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { int, readParams, str } from '../wire/params.js';
import { advanceTestClock, createTestClock, deleteTestClock, listTestClocks, loadTestClock } from '../model/test-clocks.js';

export const testClockRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/test_helpers/test_clocks',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(createTestClock(ctx, { frozenTime: int(p, 'frozen_time'), name: str(p, 'name') }));
    },
  },
  {
    method: 'GET',
    path: '/v1/test_helpers/test_clocks',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listTestClocks(ctx, readListWindow(p)), '/v1/test_helpers/test_clocks'));
    },
  },
  { method: 'GET', path: '/v1/test_helpers/test_clocks/{id}', handler: (req, ctx) => (readParams(req), ok(loadTestClock(ctx, req.params.id!))) },
  { method: 'DELETE', path: '/v1/test_helpers/test_clocks/{id}', handler: (req, ctx) => (readParams(req), ok(deleteTestClock(ctx, req.params.id!))) },
  {
    method: 'POST',
    path: '/v1/test_helpers/test_clocks/{id}/advance',
    handler: (req, ctx) => ok(advanceTestClock(ctx, req.params.id!, int(readParams(req), 'frozen_time'))),
  },
];
