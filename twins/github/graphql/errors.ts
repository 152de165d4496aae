// An error a resolver raises with GitHub's `type` (NOT_FOUND, UNPROCESSABLE, FORBIDDEN…), which
// GitHub answers beside the message in `errors[]` and clients such as gh test for.

export class GraphQLFailure extends Error {
  constructor(message: string, readonly type: string) {
    super(message);
  }
}
