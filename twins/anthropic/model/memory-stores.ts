// Memory stores (beta, managed agents): stores of text memories addressed by path. Every write is a
// memory version (`created`, `modified`, `deleted`) that can later be redacted; an update may carry
// a `content_sha256` precondition; paths are unique within a store (a clash is a 409). An archived
// store keeps its memories readable but takes no writes.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const MEMORY_STORE = 'memory_store';

const MAX_CONTENT = 102_400;
const MAX_PATH = 1_024;
const MAX_MEMORIES = 10_000;

export type View = 'basic' | 'full';

export interface MemoryStoreObject {
  id: string;
  type: 'memory_store';
  name: string;
  description: string;
  metadata: Record<string, string>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

interface Memory {
  id: string;
  path: string;
  content: string;
  memory_version_id: string;
  created_at: string;
  updated_at: string;
}

interface Version {
  id: string;
  memory_id: string;
  operation: 'created' | 'modified' | 'deleted';
  path: string | null;
  content: string | null;
  created_at: string;
  redacted_at: string | null;
}

interface StoredMemoryStore {
  store: MemoryStoreObject;
  memories: Memory[];
  versions: Version[];
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const now = (ctx: TwinContext) => new Date(ctx.clock.nowMs()).toISOString();

function stored(ctx: TwinContext, id: string): StoredMemoryStore {
  const s = ctx.store.get<StoredMemoryStore>(MEMORY_STORE, id);
  if (!s) throw new AnthropicError(404, `Memory store not found: ${id}`, 'not_found_error');
  return s;
}

function writable(ctx: TwinContext, id: string): StoredMemoryStore {
  const s = stored(ctx, id);
  if (s.store.archived_at) throw invalid(`Memory store ${id} is archived: its memories can be read and deleted, not written.`);
  return s;
}

function checkName(name: string): void {
  if (name.length < 1 || name.length > 255) throw invalid('name: must be 1 to 255 characters');
}

function checkDescription(d: string): void {
  if (d.length > 1024) throw invalid('description: at most 1,024 characters');
}

export function createMemoryStore(ctx: TwinContext, input: { name: string; description?: string; metadata?: Record<string, string> }): MemoryStoreObject {
  checkName(input.name);
  checkDescription(input.description ?? '');
  const at = now(ctx);
  const store: MemoryStoreObject = {
    id: ctx.ids.nextIn('memstore', 'memstore_01', 22),
    type: 'memory_store',
    name: input.name,
    description: input.description ?? '',
    metadata: input.metadata ?? {},
    archived_at: null,
    created_at: at,
    updated_at: at,
  };
  ctx.store.put(MEMORY_STORE, store.id, { store, memories: [], versions: [] } satisfies StoredMemoryStore);
  return store;
}

export function listMemoryStores(ctx: TwinContext, includeArchived: boolean): MemoryStoreObject[] {
  return ctx.store
    .list<StoredMemoryStore>(MEMORY_STORE)
    .map((s) => s.store)
    .filter((s) => includeArchived || !s.archived_at)
    .reverse();
}

export function retrieveMemoryStore(ctx: TwinContext, id: string): MemoryStoreObject {
  return stored(ctx, id).store;
}

/** `metadata` merges: a key set to null is removed. */
export function updateMemoryStore(
  ctx: TwinContext,
  id: string,
  input: { name?: string | null; description?: string | null; metadata?: Record<string, string | null> },
) {
  const s = writable(ctx, id);
  if (input.name !== undefined && input.name !== null) checkName(input.name);
  if (input.description !== undefined && input.description !== null) checkDescription(input.description);
  const metadata = { ...s.store.metadata };
  for (const [k, v] of Object.entries(input.metadata ?? {})) {
    if (v === null) delete metadata[k];
    else Object.defineProperty(metadata, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(metadata).length > 16) throw invalid('metadata: at most 16 pairs');
  s.store = {
    ...s.store,
    ...(input.name ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
    metadata,
    updated_at: now(ctx),
  };
  ctx.store.put(MEMORY_STORE, id, s);
  return s.store;
}

export function archiveMemoryStore(ctx: TwinContext, id: string): MemoryStoreObject {
  const s = stored(ctx, id);
  if (!s.store.archived_at) {
    const at = now(ctx);
    s.store = { ...s.store, archived_at: at, updated_at: at };
    ctx.store.put(MEMORY_STORE, id, s);
  }
  return s.store;
}

export function deleteMemoryStore(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(MEMORY_STORE, id);
  return { id, type: 'memory_store_deleted' as const };
}

function checkPath(path: string): void {
  if (!path.startsWith('/') || path.endsWith('/') || Buffer.byteLength(path) > MAX_PATH || path.includes('//')) {
    throw invalid('path: must start with `/`, name a file (not end with `/`) and be at most 1,024 bytes');
  }
}

function checkContent(content: string): void {
  if (Buffer.byteLength(content) > MAX_CONTENT) throw invalid(`content: at most ${MAX_CONTENT} bytes`);
}

function clash(s: StoredMemoryStore, path: string, except?: string): void {
  const other = s.memories.find((m) => m.path === path && m.id !== except);
  if (other) throw new AnthropicError(409, `A memory already exists at ${path} (${other.id}).`, 'memory_path_conflict_error');
}

function render(s: StoredMemoryStore, m: Memory, view: View) {
  return {
    id: m.id,
    type: 'memory' as const,
    memory_store_id: s.store.id,
    path: m.path,
    content_sha256: sha(m.content),
    content_size_bytes: Buffer.byteLength(m.content),
    memory_version_id: m.memory_version_id,
    created_at: m.created_at,
    updated_at: m.updated_at,
    content: view === 'full' ? m.content : null,
  };
}

function version(
  ctx: TwinContext,
  s: StoredMemoryStore,
  memoryId: string,
  operation: Version['operation'],
  path: string | null,
  content: string | null,
): Version {
  const v: Version = { id: ctx.ids.nextIn('memver', 'memver_01', 22), memory_id: memoryId, operation, path, content, created_at: now(ctx), redacted_at: null };
  s.versions.push(v);
  return v;
}

function memoryOf(s: StoredMemoryStore, id: string): Memory {
  const m = s.memories.find((x) => x.id === id);
  if (!m) throw new AnthropicError(404, `Memory not found: ${id}`, 'not_found_error');
  return m;
}

export function createMemory(ctx: TwinContext, storeId: string, input: { path: string; content: string; view: View }) {
  const s = writable(ctx, storeId);
  checkPath(input.path);
  checkContent(input.content);
  clash(s, input.path);
  if (s.memories.length >= MAX_MEMORIES) throw invalid(`A memory store holds at most ${MAX_MEMORIES} memories.`);
  const id = ctx.ids.nextIn('mem', 'mem_01', 22);
  const v = version(ctx, s, id, 'created', input.path, input.content);
  const m: Memory = { id, path: input.path, content: input.content, memory_version_id: v.id, created_at: v.created_at, updated_at: v.created_at };
  s.memories.push(m);
  ctx.store.put(MEMORY_STORE, storeId, s);
  return render(s, m, input.view);
}

export function retrieveMemory(ctx: TwinContext, storeId: string, id: string, view: View) {
  const s = stored(ctx, storeId);
  return render(s, memoryOf(s, id), view);
}

export function updateMemory(ctx: TwinContext, storeId: string, id: string, input: { path?: string; content?: string; sha256?: string; view: View }) {
  const s = writable(ctx, storeId);
  const m = memoryOf(s, id);
  if (input.sha256 !== undefined && input.sha256 !== sha(m.content)) {
    throw new AnthropicError(409, `The memory's content_sha256 is ${sha(m.content)}, not ${input.sha256}.`, 'memory_precondition_failed_error');
  }
  if (input.path !== undefined) {
    checkPath(input.path);
    clash(s, input.path, id);
  }
  if (input.content !== undefined) checkContent(input.content);
  const path = input.path ?? m.path;
  const content = input.content ?? m.content;
  if (path !== m.path || content !== m.content) {
    const v = version(ctx, s, id, 'modified', path, content);
    Object.assign(m, { path, content, memory_version_id: v.id, updated_at: v.created_at });
    ctx.store.put(MEMORY_STORE, storeId, s);
  }
  return render(s, m, input.view);
}

export function deleteMemory(ctx: TwinContext, storeId: string, id: string) {
  const s = stored(ctx, storeId);
  memoryOf(s, id);
  version(ctx, s, id, 'deleted', null, null);
  s.memories = s.memories.filter((m) => m.id !== id);
  ctx.store.put(MEMORY_STORE, storeId, s);
  return { id, type: 'memory_deleted' as const };
}

/** Memories below `prefix` in path order; with depth 1, deeper ones are grouped into `memory_prefix` items. */
export function listMemories(ctx: TwinContext, storeId: string, q: { prefix?: string; depth: number; view: View }) {
  const s = stored(ctx, storeId);
  const prefix = q.prefix ?? '/';
  if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw invalid('path_prefix: must start and end with `/`');
  const below = s.memories.filter((m) => m.path.startsWith(prefix)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (q.depth !== 1) return below.map((m) => render(s, m, q.view));
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const m of below) {
    const rest = m.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) out.push(render(s, m, q.view));
    else {
      const p = `${prefix}${rest.slice(0, slash + 1)}`;
      if (!seen.has(p)) out.push({ type: 'memory_prefix', path: p });
      seen.add(p);
    }
  }
  return out;
}

function renderVersion(s: StoredMemoryStore, v: Version, view: View) {
  const gone = v.redacted_at !== null || v.operation === 'deleted';
  return {
    id: v.id,
    type: 'memory_version' as const,
    memory_id: v.memory_id,
    memory_store_id: s.store.id,
    operation: v.operation,
    created_at: v.created_at,
    path: v.redacted_at ? null : v.path,
    content: gone || view === 'basic' ? null : v.content,
    content_sha256: gone ? null : sha(v.content ?? ''),
    content_size_bytes: gone ? null : Buffer.byteLength(v.content ?? ''),
    created_by: { type: 'api_actor', api_key_id: 'apikey_twin' },
    redacted_at: v.redacted_at,
    redacted_by: v.redacted_at ? { type: 'api_actor', api_key_id: 'apikey_twin' } : null,
  };
}

/** Newest first, filtered by memory and operation. */
export function listMemoryVersions(ctx: TwinContext, storeId: string, q: { memoryId?: string; operation?: string; view: View }) {
  const s = stored(ctx, storeId);
  return s.versions
    .filter((v) => (q.memoryId === undefined || v.memory_id === q.memoryId) && (q.operation === undefined || v.operation === q.operation))
    .reverse()
    .map((v) => renderVersion(s, v, q.view));
}

function versionOf(s: StoredMemoryStore, id: string): Version {
  const v = s.versions.find((x) => x.id === id);
  if (!v) throw new AnthropicError(404, `Memory version not found: ${id}`, 'not_found_error');
  return v;
}

export function retrieveMemoryVersion(ctx: TwinContext, storeId: string, id: string, view: View) {
  const s = stored(ctx, storeId);
  return renderVersion(s, versionOf(s, id), view);
}

/** Redaction wipes the version's content and path; the memory's current version cannot be redacted. */
export function redactMemoryVersion(ctx: TwinContext, storeId: string, id: string) {
  const s = stored(ctx, storeId);
  const v = versionOf(s, id);
  if (s.memories.some((m) => m.memory_version_id === id))
    throw invalid(`Memory version ${id} holds its memory's current content; update or delete the memory first.`);
  if (!v.redacted_at) {
    v.redacted_at = now(ctx);
    v.content = null;
    v.path = null;
    ctx.store.put(MEMORY_STORE, storeId, s);
  }
  return renderVersion(s, v, 'full');
}
