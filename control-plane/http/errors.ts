// Errors every route throws: each becomes `{"detail": "<sentence>"}` with its status (docs/decisions.md §1).

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const unauthorized = (detail = 'Not authenticated') => new HttpError(401, detail, { 'www-authenticate': 'Bearer' });
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const paymentRequired = (detail: string) => new HttpError(402, detail);
export const badGateway = (detail: string) => new HttpError(502, detail);
export const unavailable = (detail: string) => new HttpError(503, detail);
