// `GET /rate_limit` (free: it does not count against the limit, as on GitHub).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { rateLimitOverview } from '../model/rate-limit.js';
import { routes } from '../wire/http.js';

export const rateLimitRoutes: TwinRoute[] = [...routes('GET', '/rate_limit', (_req, ctx) => ({ body: rateLimitOverview(ctx) }), true)];
