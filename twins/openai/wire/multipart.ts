// multipart/form-data bodies (file uploads), parsed by the platform's own parser (undici's
// FormData through the fetch Response) over the already size-limited body.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { invalidRequest } from './errors.js';

export interface MultipartBody {
  fields: Map<string, string>;
  files: Map<string, { filename: string; content: Buffer }>;
}

const MAX_PARTS = 64;

export async function readMultipart(req: TwinRequest): Promise<MultipartBody> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data\b/i.test(type)) throw invalidRequest('Expected a multipart/form-data body.', null, null);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.rawBody), { headers: { 'content-type': type } }).formData();
  } catch {
    throw invalidRequest('The multipart/form-data body could not be parsed.', null, null);
  }
  const fields = new Map<string, string>();
  const files = new Map<string, { filename: string; content: Buffer }>();
  let parts = 0;
  for (const [name, value] of form.entries()) {
    if (++parts > MAX_PARTS) throw invalidRequest(`Too many multipart parts (at most ${MAX_PARTS}).`, null, null);
    if (typeof value === 'string') fields.set(name, value);
    else files.set(name, { filename: value.name || 'file', content: Buffer.from(await value.arrayBuffer()) });
  }
  return { fields, files };
}
