// An error a resolver raises with GitHub's `type` (NOT_FOUND, UNPROCESSABLE, FORBIDDEN…), which
// GitHub answers beside the message in `errors[]` and clients such as gh test for.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export class GraphQLFailure extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

/** Thrown to roll a failed mutation's writes back; the error renderer answers its response. */
export class RolledBackAnswer extends Error {
  constructor(readonly response: TwinResponse) {
    super('mutation failed');
  }
}
