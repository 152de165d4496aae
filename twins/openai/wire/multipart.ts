// multipart/form-data bodies (file uploads): the runtime's parser (twin-runtime/multipart.ts) with
// OpenAI's invalid_request_error as the refusal.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { readMultipart as parse, type MultipartBody } from '../../../twin-runtime/multipart.js';
import { invalidRequest } from './errors.js';

export type { MultipartBody };

export function readMultipart(req: TwinRequest): Promise<MultipartBody> {
  return parse(req, (message) => invalidRequest(message, null, null));
}
