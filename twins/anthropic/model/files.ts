// Files (the Files API, beta): uploaded bytes with their name and MIME type, listed newest first,
// their metadata read back, deleted. Uploaded files are not downloadable (only files the API itself
// creates, such as code execution outputs, are); `expires_in_seconds` sets `expires_at`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const FILE = 'file';

export interface FileMetadata {
  id: string;
  type: 'file';
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
  downloadable: boolean;
  expires_at?: string;
}

interface StoredFile {
  file: FileMetadata;
  content_base64: string;
}

/** A file name as the API takes it: 1–255 characters, no path separators or control characters. */
function checkFilename(name: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name.length === 0 || name.length > 255 || /[/\\\u0000-\u001f]/.test(name)) {
    throw invalid('filename: must be 1 to 255 characters with no path separators or control characters');
  }
}

export function uploadFile(ctx: TwinContext, input: { filename: string; mimeType: string; content: Buffer; expiresInSeconds?: number }): FileMetadata {
  checkFilename(input.filename);
  if (input.content.length === 0) throw invalid('file: File is empty');
  const now = ctx.clock.nowMs();
  const file: FileMetadata = {
    id: ctx.ids.nextIn('file', 'file_011C', 20),
    type: 'file',
    filename: input.filename,
    mime_type: input.mimeType || 'application/octet-stream',
    size_bytes: input.content.length,
    created_at: new Date(now).toISOString(),
    downloadable: false,
    ...(input.expiresInSeconds !== undefined ? { expires_at: new Date(now + input.expiresInSeconds * 1000).toISOString() } : {}),
  };
  ctx.store.put(FILE, file.id, { file, content_base64: input.content.toString('base64') } satisfies StoredFile);
  return file;
}

function stored(ctx: TwinContext, id: string): StoredFile {
  const s = ctx.store.get<StoredFile>(FILE, id);
  if (!s) throw new AnthropicError(404, `File not found: ${id}`, 'not_found_error');
  return s;
}

/** Newest first; `page` continues after the file it names (the previous page's `next_page`); `ids` picks files. */
export function listFiles(ctx: TwinContext, q: { limit: number; page?: string; ids?: string[]; scopeId?: string }) {
  let all = ctx.store
    .list<StoredFile>(FILE)
    .map((s) => s.file)
    .reverse();
  // Uploaded files have no scope (scopes are sessions the API creates).
  if (q.scopeId !== undefined) all = [];
  if (q.ids !== undefined) {
    const wanted = new Set(q.ids);
    const data = all.filter((f) => wanted.has(f.id));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, next_page: null };
  }
  let start = 0;
  if (q.page !== undefined) {
    const at = all.findIndex((f) => f.id === q.page);
    if (at === -1) throw invalid('page: invalid page token');
    start = at + 1;
  }
  const data = all.slice(start, start + q.limit);
  const hasMore = start + q.limit < all.length;
  return {
    data,
    has_more: hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    next_page: hasMore ? data[data.length - 1]!.id : null,
  };
}

export function retrieveFile(ctx: TwinContext, id: string): FileMetadata {
  return stored(ctx, id).file;
}

/** Uploaded files cannot be downloaded (the API's 400); none other exist in the twin. */
export function downloadFile(ctx: TwinContext, id: string): Buffer {
  const s = stored(ctx, id);
  if (!s.file.downloadable) throw invalid(`File ${id} is not downloadable.`);
  return Buffer.from(s.content_base64, 'base64');
}

export function deleteFile(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(FILE, id);
  return { id, type: 'file_deleted' as const };
}
