// /v1/reviews: list (open ones), retrieve, approve (model/reviews.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { approveReview, getReview, listOpenReviews } from '../model/reviews.js';

export const reviewRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/reviews',
    handler: (req, ctx) => ok(listEnvelope(listOpenReviews(ctx, readListWindow(readParams(req))), '/v1/reviews')),
  },
  {
    method: 'GET',
    path: '/v1/reviews/{review}',
    handler: (req, ctx) => (readParams(req), ok(getReview(ctx, req.params.review!))),
  },
  {
    method: 'POST',
    path: '/v1/reviews/{review}/approve',
    handler: (req, ctx) => (readParams(req), ok(approveReview(ctx, req.params.review!))),
  },
];
