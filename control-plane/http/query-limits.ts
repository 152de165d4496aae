// The query string's limit: no route takes more than a handful of query parameters, so a request
// with more than MAX_QUERY_PARAMETERS pairs answers 400 `{"detail"}` before authentication and
// validation (Starlette words its form limit the same way). Fastify's own parser keeps query keys
// on a null-prototype object, flat, so `__proto__` there is just a name; the URL itself is bounded
// by Node's header size limit.

import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

export const MAX_QUERY_PARAMETERS = 100;

/** The number of `&`-separated pairs in a URL's query string (empty pairs not counted). */
export function queryPairCount(url: string): number {
  const q = url.indexOf('?');
  if (q === -1) return 0;
  let count = 0;
  let start = q + 1;
  for (;;) {
    const amp = url.indexOf('&', start);
    const end = amp === -1 ? url.length : amp;
    if (end > start) count++;
    if (amp === -1) return count;
    start = amp + 1;
  }
}

export async function refuseLongQueries(req: FastifyRequest): Promise<void> {
  if (queryPairCount(req.url) > MAX_QUERY_PARAMETERS) {
    throw new HttpError(400, `Too many query parameters. Maximum number of parameters is ${MAX_QUERY_PARAMETERS}.`);
  }
}
