// Response schemas shared by every route, so the OpenAPI document lists each status a route can
// answer: `{"detail": "<sentence>"}` for errors and the Pydantic-style 422 body.

import { z } from 'zod';

export const errorBody = z.object({ detail: z.string() }).meta({ id: 'HTTPError' });

export const validationErrorEntry = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' });

export const validationErrorBody = z.object({ detail: z.array(validationErrorEntry).optional() }).meta({ id: 'HTTPValidationError' });

/** An empty body (204). */
export const noContent = z.null().optional().describe('No content');

type ErrorStatus = 401 | 402 | 403 | 404 | 409 | 502 | 503;

/** Error responses of a route: 422 always (it takes input or not, FastAPI lists it), plus those given. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const out: Record<number, typeof errorBody | typeof validationErrorBody> = { 422: validationErrorBody };
  for (const s of statuses) out[s] = errorBody;
  return out as Record<S, typeof errorBody> & { 422: typeof validationErrorBody };
}
