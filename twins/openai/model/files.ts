// Files: uploaded bytes with a purpose, listed newest first, their content readable back, deleted.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';

export const FILE = 'file';
export const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;
export type FilePurpose = (typeof PURPOSES)[number] | 'batch_output' | 'fine-tune-results';

export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: FilePurpose;
  status: 'processed';
  status_details: null;
}

interface StoredFile {
  file: FileObject;
  content_base64: string;
}

/** A purpose a client may upload with (`batch_output` files are the twin's own). */
export function isPurpose(v: string): v is (typeof PURPOSES)[number] {
  return (PURPOSES as readonly string[]).includes(v);
}

export function createFile(ctx: TwinContext, input: { filename: string; purpose: FilePurpose; content: Buffer }): FileObject {
  if (input.purpose === 'fine-tune' && !input.filename.endsWith('.jsonl')) {
    throw invalidRequest(`Invalid file format for Fine-Tuning API. Must be .jsonl`, 'file', null);
  }
  const file: FileObject = {
    id: ctx.ids.nextIn('file', 'file-', 22),
    object: 'file',
    bytes: input.content.length,
    created_at: ctx.clock.nowSeconds(),
    expires_at: input.purpose === 'batch' ? ctx.clock.nowSeconds() + 30 * 86_400 : null,
    filename: input.filename,
    purpose: input.purpose,
    status: 'processed',
    status_details: null,
  };
  ctx.store.put(FILE, file.id, { file, content_base64: input.content.toString('base64') } satisfies StoredFile);
  return file;
}

function stored(ctx: TwinContext, id: string): StoredFile {
  const s = ctx.store.get<StoredFile>(FILE, id);
  if (!s) throw new OpenAIError(404, `No such File object: ${id}`, 'invalid_request_error', 'id', null);
  return s;
}

export function listFiles(ctx: TwinContext, purpose?: string): FileObject[] {
  return ctx.store
    .list<StoredFile>(FILE)
    .map((s) => s.file)
    .filter((f) => purpose === undefined || f.purpose === purpose);
}

export function retrieveFile(ctx: TwinContext, id: string): FileObject {
  return stored(ctx, id).file;
}

export function fileContent(ctx: TwinContext, id: string): Buffer {
  return Buffer.from(stored(ctx, id).content_base64, 'base64');
}

export function deleteFile(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(FILE, id);
  return { id, object: 'file' as const, deleted: true as const };
}
