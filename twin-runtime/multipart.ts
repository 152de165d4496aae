// multipart/form-data bodies (file uploads), parsed by the platform's own parser (undici's
// FormData through the fetch Response) over the already size-limited body. Each twin words the
// refusal as its provider does (`refuse`).

import type { TwinRequest } from './contract.js';

export interface MultipartFile {
  filename: string;
  content: Buffer;
  type: string;
}

export interface MultipartBody {
  fields: Map<string, string>;
  /** The last file of each name. */
  files: Map<string, MultipartFile>;
  /** Every file of each name, in order (`files[]` repeated). */
  fileLists: Map<string, MultipartFile[]>;
}

const MAX_PARTS = 64;

export async function readMultipart(req: TwinRequest, refuse: (message: string) => Error): Promise<MultipartBody> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data\b/i.test(type)) throw refuse('Expected a multipart/form-data body.');
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.rawBody), { headers: { 'content-type': type } }).formData();
  } catch {
    throw refuse('The multipart/form-data body could not be parsed.');
  }
  const fields = new Map<string, string>();
  const files = new Map<string, MultipartFile>();
  const fileLists = new Map<string, MultipartFile[]>();
  let parts = 0;
  for (const [name, value] of form.entries()) {
    if (++parts > MAX_PARTS) throw refuse(`Too many multipart parts (at most ${MAX_PARTS}).`);
    if (typeof value === 'string') fields.set(name, value);
    else {
      const file = { filename: value.name || 'file', content: Buffer.from(await value.arrayBuffer()), type: value.type };
      files.set(name, file);
      fileLists.set(name, [...(fileLists.get(name) ?? []), file]);
    }
  }
  return { fields, files, fileLists };
}
