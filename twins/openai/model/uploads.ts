// Uploads: a large file sent in parts. An upload is `pending` for an hour (or its `expires_after`),
// takes parts of at most 64 MB, and on `complete` with its parts in order (their total the declared
// `bytes`, the `md5` when given) becomes a File of its purpose; it can be cancelled while pending.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { createFile, type FileObject, type FilePurpose } from './files.js';

export const UPLOAD = 'upload';
export const UPLOAD_PART = 'upload_part';

const MAX_BYTES = 8 * 1024 ** 3;
const MAX_PART_BYTES = 64 * 1024 ** 2;
const DEFAULT_EXPIRY_SECONDS = 3600;

export interface UploadObject {
  id: string;
  object: 'upload';
  bytes: number;
  created_at: number;
  expires_at: number;
  filename: string;
  purpose: string;
  status: 'pending' | 'completed' | 'cancelled' | 'expired';
  file: FileObject | null;
}

interface StoredUpload {
  upload: UploadObject;
  mime_type: string;
  part_ids: string[];
}

interface StoredPart {
  part: { id: string; object: 'upload.part'; created_at: number; upload_id: string };
  content_base64: string;
}

/** The upload as it stands now: a pending upload past its expiry has expired. */
function current(ctx: TwinContext, s: StoredUpload): UploadObject {
  if (s.upload.status === 'pending' && ctx.clock.nowSeconds() >= s.upload.expires_at) return { ...s.upload, status: 'expired' };
  return s.upload;
}

function stored(ctx: TwinContext, id: string): StoredUpload {
  const s = ctx.store.get<StoredUpload>(UPLOAD, id);
  if (!s) throw new OpenAIError(404, `No such Upload object: ${id}`, 'invalid_request_error', 'upload_id', null);
  return s;
}

function pending(ctx: TwinContext, id: string): StoredUpload {
  const s = stored(ctx, id);
  const status = current(ctx, s).status;
  if (status !== 'pending') throw invalidRequest(`Upload ${id} is ${status}; only a pending upload takes this request.`, 'upload_id', null);
  return s;
}

export function createUpload(
  ctx: TwinContext,
  input: { bytes: number; filename: string; mimeType: string; purpose: FilePurpose; expiresAfterSeconds?: number },
): UploadObject {
  if (input.bytes < 1 || input.bytes > MAX_BYTES) {
    throw invalidRequest(`Invalid 'bytes': an upload holds 1 to ${MAX_BYTES} bytes.`, 'bytes', 'invalid_value');
  }
  const now = ctx.clock.nowSeconds();
  const upload: UploadObject = {
    id: ctx.ids.nextIn('upload', 'upload_', 24),
    object: 'upload',
    bytes: input.bytes,
    created_at: now,
    expires_at: now + (input.expiresAfterSeconds ?? DEFAULT_EXPIRY_SECONDS),
    filename: input.filename,
    purpose: input.purpose,
    status: 'pending',
    file: null,
  };
  ctx.store.put(UPLOAD, upload.id, { upload, mime_type: input.mimeType, part_ids: [] } satisfies StoredUpload);
  return upload;
}

export function addUploadPart(ctx: TwinContext, uploadId: string, data: Buffer) {
  const s = pending(ctx, uploadId);
  if (data.length > MAX_PART_BYTES) throw invalidRequest(`Invalid 'data': a part holds at most ${MAX_PART_BYTES} bytes.`, 'data', 'invalid_value');
  const part: StoredPart['part'] = { id: ctx.ids.nextIn('part', 'part_', 24), object: 'upload.part', created_at: ctx.clock.nowSeconds(), upload_id: uploadId };
  ctx.store.put(UPLOAD_PART, part.id, { part, content_base64: data.toString('base64') } satisfies StoredPart);
  s.part_ids.push(part.id);
  ctx.store.put(UPLOAD, uploadId, s);
  return part;
}

export function completeUpload(ctx: TwinContext, uploadId: string, partIds: string[], md5?: string): UploadObject {
  const s = pending(ctx, uploadId);
  if (partIds.length === 0) throw invalidRequest("Invalid 'part_ids': expected at least one part.", 'part_ids', 'empty_array');
  if (new Set(partIds).size !== partIds.length) throw invalidRequest("Invalid 'part_ids': a part is listed twice.", 'part_ids', 'invalid_value');
  const owned = new Set(s.part_ids);
  const pieces = partIds.map((id) => {
    const p = owned.has(id) ? ctx.store.get<StoredPart>(UPLOAD_PART, id) : undefined;
    if (!p) throw invalidRequest(`Invalid 'part_ids': ${id} is not a part of upload ${uploadId}.`, 'part_ids', 'invalid_value');
    return Buffer.from(p.content_base64, 'base64');
  });
  const content = Buffer.concat(pieces);
  if (content.length !== s.upload.bytes) {
    throw invalidRequest(`The parts hold ${content.length} bytes, but the upload was created for ${s.upload.bytes} bytes.`, 'part_ids', 'invalid_value');
  }
  if (md5 !== undefined && createHash('md5').update(content).digest('hex') !== md5.toLowerCase()) {
    throw invalidRequest('The md5 checksum does not match the uploaded bytes.', 'md5', 'invalid_value');
  }
  const file = createFile(ctx, { filename: s.upload.filename, purpose: s.upload.purpose as FilePurpose, content });
  for (const id of s.part_ids) ctx.store.delete(UPLOAD_PART, id);
  s.upload = { ...s.upload, status: 'completed', file };
  s.part_ids = [];
  ctx.store.put(UPLOAD, uploadId, s);
  return s.upload;
}

export function cancelUpload(ctx: TwinContext, uploadId: string): UploadObject {
  const s = pending(ctx, uploadId);
  for (const id of s.part_ids) ctx.store.delete(UPLOAD_PART, id);
  s.upload = { ...s.upload, status: 'cancelled' };
  s.part_ids = [];
  ctx.store.put(UPLOAD, uploadId, s);
  return s.upload;
}
