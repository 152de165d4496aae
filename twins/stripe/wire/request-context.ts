// The request being answered, for the parts of the model that echo it (an event's
// `request: {id, idempotency_key}`). The pipeline runs one request at a time, so a module-level
// slot is enough; lifecycle work (advance) runs with no request.

export interface CurrentRequest {
  id: string;
  idempotencyKey: string | null;
}

let current: CurrentRequest | null = null;

export function setCurrentRequest(r: CurrentRequest | null): void {
  current = r;
}

export function currentRequest(): CurrentRequest | null {
  return current;
}
