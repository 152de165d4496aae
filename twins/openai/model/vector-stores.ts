// Vector stores: files attached (one by one or in batches) are processed at once into text chunks,
// and `search` ranks the chunks by how many of the query's words they hold (a deterministic
// stand-in for embeddings similarity), filtered by the files' attributes. A file that is not UTF-8
// text fails with `unsupported_file`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { FILE, fileContent, retrieveFile } from './files.js';

export const VECTOR_STORE = 'vector_store';

const CHUNKING = { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } } as const;
/** Words per chunk: 800 tokens are about 600 English words. */
const CHUNK_WORDS = 600;
const MAX_FILES = 10_000;

type Attributes = Record<string, string | number | boolean>;

interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

export interface VectorStoreObject {
  id: string;
  object: 'vector_store';
  created_at: number;
  name: string | null;
  usage_bytes: number;
  file_counts: FileCounts;
  status: 'completed';
  expires_after: { anchor: 'last_active_at'; days: number } | null;
  expires_at: number | null;
  last_active_at: number;
  metadata: Record<string, string>;
}

export interface VectorStoreFile {
  id: string;
  object: 'vector_store.file';
  usage_bytes: number;
  created_at: number;
  vector_store_id: string;
  status: 'completed' | 'failed';
  last_error: { code: 'unsupported_file'; message: string } | null;
  chunking_strategy: typeof CHUNKING;
  attributes: Attributes;
}

export interface FileBatch {
  id: string;
  object: 'vector_store.files_batch';
  created_at: number;
  vector_store_id: string;
  status: 'completed';
  file_counts: FileCounts;
}

interface StoredVectorStore {
  store: VectorStoreObject;
  files: VectorStoreFile[];
  /** The batches and the files each attached. */
  batches: { batch: FileBatch; file_ids: string[] }[];
}

function stored(ctx: TwinContext, id: string): StoredVectorStore {
  const s = ctx.store.get<StoredVectorStore>(VECTOR_STORE, id);
  if (!s) throw new OpenAIError(404, `No vector store found with id '${id}'.`, 'invalid_request_error', null, null);
  return s;
}

function counts(files: VectorStoreFile[]): FileCounts {
  const completed = files.filter((f) => f.status === 'completed').length;
  return { in_progress: 0, completed, failed: files.length - completed, cancelled: 0, total: files.length };
}

function save(ctx: TwinContext, s: StoredVectorStore): void {
  const now = ctx.clock.nowSeconds();
  s.store = {
    ...s.store,
    usage_bytes: s.files.reduce((n, f) => n + f.usage_bytes, 0),
    file_counts: counts(s.files),
    last_active_at: now,
    expires_at: s.store.expires_after ? now + s.store.expires_after.days * 86_400 : null,
  };
  ctx.store.put(VECTOR_STORE, s.store.id, s);
}

/** The file's text, or undefined when it is not UTF-8 text. */
function textOf(ctx: TwinContext, fileId: string): string | undefined {
  const bytes = fileContent(ctx, fileId);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return text.includes('\uFFFD') || text.includes('\u0000') ? undefined : text;
}

function attach(ctx: TwinContext, s: StoredVectorStore, fileId: string, attributes: Attributes): VectorStoreFile {
  const file = retrieveFile(ctx, fileId);
  if (s.files.length >= MAX_FILES) throw invalidRequest(`A vector store holds at most ${MAX_FILES} files.`, 'file_id', null);
  const text = textOf(ctx, fileId);
  const vsFile: VectorStoreFile = {
    id: file.id,
    object: 'vector_store.file',
    usage_bytes: text === undefined ? 0 : file.bytes,
    created_at: ctx.clock.nowSeconds(),
    vector_store_id: s.store.id,
    status: text === undefined ? 'failed' : 'completed',
    last_error: text === undefined ? { code: 'unsupported_file', message: 'The file type is not supported.' } : null,
    chunking_strategy: CHUNKING,
    attributes,
  };
  s.files = [...s.files.filter((f) => f.id !== file.id), vsFile];
  return vsFile;
}

export function createVectorStore(
  ctx: TwinContext,
  input: { name?: string; fileIds: string[]; metadata?: Record<string, string>; expiresAfterDays?: number },
): VectorStoreObject {
  const now = ctx.clock.nowSeconds();
  const s: StoredVectorStore = {
    store: {
      id: ctx.ids.nextIn('vs', 'vs_', 32),
      object: 'vector_store',
      created_at: now,
      name: input.name ?? null,
      usage_bytes: 0,
      file_counts: counts([]),
      status: 'completed',
      expires_after: input.expiresAfterDays !== undefined ? { anchor: 'last_active_at', days: input.expiresAfterDays } : null,
      expires_at: null,
      last_active_at: now,
      metadata: input.metadata ?? {},
    },
    files: [],
    batches: [],
  };
  for (const id of input.fileIds) attach(ctx, s, id, {});
  save(ctx, s);
  return s.store;
}

export function listVectorStores(ctx: TwinContext): VectorStoreObject[] {
  return ctx.store.list<StoredVectorStore>(VECTOR_STORE).map((s) => s.store);
}

export function retrieveVectorStore(ctx: TwinContext, id: string): VectorStoreObject {
  return stored(ctx, id).store;
}

export function updateVectorStore(ctx: TwinContext, id: string, input: { name?: string; metadata?: Record<string, string>; expiresAfterDays?: number | null }) {
  const s = stored(ctx, id);
  s.store = {
    ...s.store,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    ...(input.expiresAfterDays !== undefined
      ? { expires_after: input.expiresAfterDays === null ? null : { anchor: 'last_active_at' as const, days: input.expiresAfterDays } }
      : {}),
  };
  save(ctx, s);
  return s.store;
}

export function deleteVectorStore(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(VECTOR_STORE, id);
  return { id, object: 'vector_store.deleted' as const, deleted: true as const };
}

export function addVectorStoreFile(ctx: TwinContext, id: string, fileId: string, attributes: Attributes): VectorStoreFile {
  const s = stored(ctx, id);
  const f = attach(ctx, s, fileId, attributes);
  save(ctx, s);
  return f;
}

function vsFile(s: StoredVectorStore, fileId: string): VectorStoreFile {
  const f = s.files.find((x) => x.id === fileId);
  if (!f) throw new OpenAIError(404, `No file found with id '${fileId}' in vector store '${s.store.id}'.`, 'invalid_request_error', null, null);
  return f;
}

export function listVectorStoreFiles(ctx: TwinContext, id: string, status?: string): VectorStoreFile[] {
  return stored(ctx, id).files.filter((f) => status === undefined || f.status === status);
}

export function retrieveVectorStoreFile(ctx: TwinContext, id: string, fileId: string): VectorStoreFile {
  return vsFile(stored(ctx, id), fileId);
}

export function updateVectorStoreFile(ctx: TwinContext, id: string, fileId: string, attributes: Attributes): VectorStoreFile {
  const s = stored(ctx, id);
  vsFile(s, fileId).attributes = attributes;
  save(ctx, s);
  return vsFile(s, fileId);
}

/** Detaches the file from the store (the File itself stays). */
export function deleteVectorStoreFile(ctx: TwinContext, id: string, fileId: string) {
  const s = stored(ctx, id);
  vsFile(s, fileId);
  s.files = s.files.filter((f) => f.id !== fileId);
  save(ctx, s);
  return { id: fileId, object: 'vector_store.file.deleted' as const, deleted: true as const };
}

function chunks(text: string): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const out: string[] = [];
  for (let i = 0; i < words.length; i += CHUNK_WORDS / 2) {
    out.push(words.slice(i, i + CHUNK_WORDS).join(' '));
    if (i + CHUNK_WORDS >= words.length) break;
  }
  return out;
}

export function vectorStoreFileContent(ctx: TwinContext, id: string, fileId: string) {
  const f = vsFile(stored(ctx, id), fileId);
  const text = f.status === 'completed' ? (textOf(ctx, fileId) ?? '') : '';
  return {
    object: 'vector_store.file_content.page' as const,
    data: chunks(text).map((c) => ({ type: 'text' as const, text: c })),
    has_more: false,
    next_page: null,
  };
}

export function createFileBatch(ctx: TwinContext, id: string, files: { fileId: string; attributes: Attributes }[]): FileBatch {
  const s = stored(ctx, id);
  const attached = files.map((f) => attach(ctx, s, f.fileId, f.attributes));
  const batch: FileBatch = {
    id: ctx.ids.nextIn('vsfb', 'vsfb_', 32),
    object: 'vector_store.files_batch',
    created_at: ctx.clock.nowSeconds(),
    vector_store_id: id,
    status: 'completed',
    file_counts: counts(attached),
  };
  s.batches.push({ batch, file_ids: attached.map((f) => f.id) });
  save(ctx, s);
  return batch;
}

function batchOf(s: StoredVectorStore, batchId: string) {
  const b = s.batches.find((x) => x.batch.id === batchId);
  if (!b) throw new OpenAIError(404, `No file batch found with id '${batchId}'.`, 'invalid_request_error', null, null);
  return b;
}

export function retrieveFileBatch(ctx: TwinContext, id: string, batchId: string): FileBatch {
  return batchOf(stored(ctx, id), batchId).batch;
}

/** Batches are processed at once, so there is never one in progress to cancel. */
export function cancelFileBatch(ctx: TwinContext, id: string, batchId: string): never {
  const b = batchOf(stored(ctx, id), batchId);
  throw invalidRequest(`Cannot cancel a file batch with status '${b.batch.status}'.`, null, null);
}

export function fileBatchFiles(ctx: TwinContext, id: string, batchId: string, status?: string): VectorStoreFile[] {
  const s = stored(ctx, id);
  const ids = new Set(batchOf(s, batchId).file_ids);
  return s.files.filter((f) => ids.has(f.id) && (status === undefined || f.status === status));
}

export type AttributeFilter =
  | { type: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; key: string; value: string | number | boolean }
  | { type: 'and' | 'or'; filters: AttributeFilter[] };

function passes(filter: AttributeFilter, attributes: Attributes): boolean {
  if ('filters' in filter)
    return filter.type === 'and' ? filter.filters.every((f) => passes(f, attributes)) : filter.filters.some((f) => passes(f, attributes));
  const v = attributes[filter.key];
  if (v === undefined) return filter.type === 'ne';
  switch (filter.type) {
    case 'eq':
      return v === filter.value;
    case 'ne':
      return v !== filter.value;
    case 'gt':
      return v > filter.value;
    case 'gte':
      return v >= filter.value;
    case 'lt':
      return v < filter.value;
    case 'lte':
      return v <= filter.value;
  }
}

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Chunks ranked by the share of the query's words they hold; ties keep file order. */
export function searchVectorStore(
  ctx: TwinContext,
  id: string,
  q: { queries: string[]; maxResults: number; filter?: AttributeFilter; scoreThreshold: number },
) {
  const s = stored(ctx, id);
  const wanted = words(q.queries.join(' '));
  const hits: { file_id: string; filename: string; score: number; attributes: Attributes; content: { type: 'text'; text: string }[] }[] = [];
  for (const f of s.files) {
    if (f.status !== 'completed' || (q.filter && !passes(q.filter, f.attributes))) continue;
    const text = ctx.store.has(FILE, f.id) ? textOf(ctx, f.id) : undefined;
    if (text === undefined) continue;
    const filename = retrieveFile(ctx, f.id).filename;
    for (const chunk of chunks(text)) {
      const have = words(chunk);
      const shared = [...wanted].filter((w) => have.has(w)).length;
      const score = wanted.size === 0 ? 0 : Number((shared / wanted.size).toFixed(4));
      if (score > 0 && score >= q.scoreThreshold)
        hits.push({ file_id: f.id, filename, score, attributes: f.attributes, content: [{ type: 'text', text: chunk }] });
    }
  }
  const data = hits.sort((a, b) => b.score - a.score).slice(0, q.maxResults);
  return { object: 'vector_store.search_results.page' as const, search_query: q.queries, data, has_more: false, next_page: null };
}
