// Stripe's multipart/form-data requests (`files.create`, sent to files.stripe.com, which the SDK's
// `host` setting points here too): the runtime's parser, the text parts read as the bracket form
// they are (`file_link_data[create]=true`) into the request's body, so the one input path
// (wire/input.ts) checks them against the operation like any form; the file part beside them.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { parseBracketForm } from '../../../twin-runtime/form.js';
import { InputRefusal } from '../../../twin-runtime/safe-input.js';
import { readMultipart } from '../../../twin-runtime/multipart.js';
import { invalidRequest, missingParam } from './errors.js';
import { readParams, str, type Params } from './params.js';

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

/** The request's parameters (checked against its operation) and its file part `field`. */
export async function readMultipartParams(req: TwinRequest, field: string): Promise<{ params: Params; file: UploadedFile }> {
  const form = await readMultipart(req, (message) => invalidRequest(message));
  const text = new URLSearchParams([...form.fields].filter(([k]) => k !== field)).toString();
  let tree: Record<string, unknown>;
  try {
    tree = parseBracketForm(text);
  } catch (e) {
    if (e instanceof InputRefusal) throw invalidRequest(e.message);
    throw e;
  }
  const file = form.files.get(field);
  if (!file) {
    if (form.fields.has(field)) throw invalidRequest(`Invalid ${field}: send the file as a multipart/form-data file part.`, field);
    throw missingParam(field);
  }
  // The operation's schema names the file part as a string: it stands there as its name.
  req.body = { ...tree, [field]: file.filename };
  req.bodyKind = 'form';
  const params = readParams(req);
  return { params, file: { filename: str(params, field) ?? file.filename, content: file.content } };
}
