// File uploads: create (single_part or multi_part), send the bytes (multipart/form-data `file`,
// with `part_number` for multi_part), complete, retrieve, list. A pending upload expires one hour
// after it was created; an uploaded one can be attached to file, image, pdf, video and audio blocks
// and to files properties (`{type: "file_upload", file_upload: {id}}`) until it is used or expires.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, NotionError, notFound, validation } from '../wire/errors.js';
import { bodyId, field } from '../wire/params.js';
import { newId, notionTime } from './records.js';
import { me } from './workspace.js';

export const FILE_UPLOAD = 'file_upload';
const HOUR = 3_600_000;
const MAX_PARTS = 1000;
const MAX_SINGLE_PART = 20 * 1024 * 1024;

export interface FileUpload {
  id: string;
  mode: 'single_part' | 'multi_part';
  filename: string | null;
  content_type: string | null;
  status: 'pending' | 'uploaded';
  parts_total: number | null;
  /** Received parts, base64, by part number. */
  parts: Record<string, string>;
  created_time: string;
  last_edited_time: string;
  created_by: string;
  created_ms: number;
  in_trash: boolean;
}

function status(ctx: TwinContext, f: FileUpload): string {
  return f.status === 'pending' && ctx.clock.nowMs() > f.created_ms + HOUR ? 'expired' : f.status;
}

export function createFileUpload(ctx: TwinContext, body: Record<string, unknown>): FileUpload {
  const mode = field(body, 'mode') ?? 'single_part';
  if (mode === 'external_url') throw validation('The twin does not import files from external URLs: upload the bytes with mode `single_part` or `multi_part`.');
  if (mode !== 'single_part' && mode !== 'multi_part') throw bodyInvalid('mode', 'should be `"single_part"`, `"multi_part"` or `"external_url"`', mode);
  const filename = field(body, 'filename');
  const contentType = field(body, 'content_type');
  if (filename !== undefined && (typeof filename !== 'string' || filename.length > 900))
    throw bodyInvalid('filename', 'should be a string of at most 900 characters', filename);
  let total: number | null = null;
  if (mode === 'multi_part') {
    const n = field(body, 'number_of_parts');
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_PARTS)
      throw bodyInvalid('number_of_parts', `should be a number between 1 and ${MAX_PARTS}`, n);
    if (typeof filename !== 'string') throw bodyInvalid('filename', 'should be defined', filename);
    total = n;
  }
  const now = notionTime(ctx);
  const f: FileUpload = {
    id: newId(ctx),
    mode,
    filename: typeof filename === 'string' ? filename : null,
    content_type: typeof contentType === 'string' ? contentType : null,
    status: 'pending',
    parts_total: total,
    parts: {},
    created_time: now,
    last_edited_time: now,
    created_by: me(ctx).id,
    created_ms: ctx.clock.nowMs(),
    in_trash: false,
  };
  ctx.store.put(FILE_UPLOAD, f.id, f);
  return f;
}

export function getFileUpload(ctx: TwinContext, id: string): FileUpload {
  const f = ctx.store.get<FileUpload>(FILE_UPLOAD, id);
  if (!f) throw new NotionError(404, 'object_not_found', `Could not find file_upload with ID: ${id}.`);
  return f;
}

function requirePending(ctx: TwinContext, f: FileUpload): void {
  const s = status(ctx, f);
  if (s !== 'pending') throw validation(`File upload ${f.id} is ${s}; only a pending upload accepts data.`);
}

export function sendPart(
  ctx: TwinContext,
  id: string,
  file: { filename: string; content: Buffer; type: string } | undefined,
  partNumber: string | undefined,
): FileUpload {
  const f = getFileUpload(ctx, id);
  requirePending(ctx, f);
  if (!file) throw validation('body failed validation: body.file should be defined, instead was `undefined`.');
  if (f.mode === 'single_part') {
    if (file.content.length > MAX_SINGLE_PART) throw validation('File is larger than the 20 MB single-part limit: use mode `multi_part`.');
    f.parts = { '1': file.content.toString('base64') };
    f.status = 'uploaded';
  } else {
    const n = Number(partNumber);
    if (!Number.isInteger(n) || n < 1 || n > f.parts_total!)
      throw validation(
        `body failed validation: body.part_number should be a number between 1 and ${f.parts_total}, instead was \`${JSON.stringify(partNumber ?? null)}\`.`,
      );
    f.parts[String(n)] = file.content.toString('base64');
  }
  f.filename = f.filename ?? file.filename;
  f.content_type = f.content_type ?? (file.type || 'application/octet-stream');
  f.last_edited_time = notionTime(ctx);
  ctx.store.put(FILE_UPLOAD, f.id, f);
  return f;
}

export function completeUpload(ctx: TwinContext, id: string): FileUpload {
  const f = getFileUpload(ctx, id);
  requirePending(ctx, f);
  if (f.mode !== 'multi_part') throw validation('Only multi_part uploads are completed.');
  const sent = Object.keys(f.parts).length;
  if (sent !== f.parts_total) throw validation(`Expected ${f.parts_total} parts, received ${sent}.`);
  f.status = 'uploaded';
  f.last_edited_time = notionTime(ctx);
  ctx.store.put(FILE_UPLOAD, f.id, f);
  return f;
}

export function contentOf(f: FileUpload): Buffer {
  return Buffer.concat(
    Object.keys(f.parts)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => Buffer.from(f.parts[k]!, 'base64')),
  );
}

export function fileUploadView(ctx: TwinContext, f: FileUpload): Record<string, unknown> {
  const s = status(ctx, f);
  return {
    object: 'file_upload',
    id: f.id,
    created_time: f.created_time,
    last_edited_time: f.last_edited_time,
    expiry_time: s === 'pending' || s === 'expired' ? new Date(f.created_ms + HOUR).toISOString() : null,
    upload_url: s === 'pending' ? `${ctx.baseUrl}/v1/file_uploads/${f.id}/send` : undefined,
    complete_url: s === 'pending' && f.mode === 'multi_part' ? `${ctx.baseUrl}/v1/file_uploads/${f.id}/complete` : undefined,
    archived: f.in_trash,
    in_trash: f.in_trash,
    status: s,
    filename: f.filename,
    content_type: f.content_type,
    content_length: s === 'uploaded' ? contentOf(f).length : null,
    ...(f.mode === 'multi_part' ? { number_of_parts: { total: f.parts_total, sent: Object.keys(f.parts).length } } : {}),
    created_by: { id: f.created_by, type: 'bot' },
  };
}

export function listFileUploads(ctx: TwinContext, wanted: unknown): FileUpload[] {
  const all = ctx.store.list<FileUpload>(FILE_UPLOAD).reverse();
  if (wanted === undefined) return all;
  if (!['pending', 'uploaded', 'expired', 'failed'].includes(String(wanted)))
    throw validation(
      `query failed validation: query.status should be one of "pending", "uploaded", "expired", "failed", instead was \`${JSON.stringify(wanted)}\`.`,
    );
  return all.filter((f) => status(ctx, f) === wanted);
}

/** `{type: "file_upload", file_upload: {id}}` as Notion answers an attached file (a URL valid for an hour). */
export function attachedFile(ctx: TwinContext, raw: unknown, path: string): Record<string, unknown> {
  const id = bodyId(field(field(raw, 'file_upload'), 'id'), `${path}.file_upload.id`);
  const f = ctx.store.get<FileUpload>(FILE_UPLOAD, id);
  if (!f) throw notFound('block', id);
  if (status(ctx, f) !== 'uploaded') throw validation(`File upload ${id} is ${status(ctx, f)}; only an uploaded file can be attached.`);
  return { type: 'file', file: { url: `${ctx.baseUrl}/v1/twin/file_uploads/${id}/content`, expiry_time: new Date(ctx.clock.nowMs() + HOUR).toISOString() } };
}
