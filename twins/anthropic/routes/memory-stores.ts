// Memory stores (beta): the stores (create, list, retrieve, update, archive, delete), their
// memories (create, list by path prefix and depth, retrieve, update with a precondition, delete)
// and memory versions (list, retrieve, redact).

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  archiveMemoryStore,
  createMemory,
  createMemoryStore,
  deleteMemory,
  deleteMemoryStore,
  listMemories,
  listMemoryStores,
  listMemoryVersions,
  redactMemoryVersion,
  retrieveMemory,
  retrieveMemoryStore,
  retrieveMemoryVersion,
  updateMemory,
  updateMemoryStore,
  type View,
} from '../model/memory-stores.js';
import { invalid } from '../wire/errors.js';
import { get, jsonBody, pageQuery, type Body } from '../wire/params.js';

const STORE = '/v1/memory_stores/{memory_store_id}';

function fields(body: Body, known: readonly string[]): void {
  const extra = Object.keys(body).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalid(`${extra}: Extra inputs are not permitted`);
}

function optStr(body: Body, key: string): string | undefined {
  const v = get(body, key);
  if (v !== undefined && typeof v !== 'string') throw invalid(`${key}: Input should be a valid string`);
  return v;
}

function metadata(body: Body): Record<string, string> | undefined {
  const m = get(body, 'metadata');
  if (m === undefined) return undefined;
  if (typeof m !== 'object' || Array.isArray(m)) throw invalid('metadata: Input should be a valid dictionary');
  const out: Record<string, string> = {};
  const keys = Object.keys(m as object);
  if (keys.length > 16) throw invalid('metadata: at most 16 pairs');
  for (const k of keys) {
    const v = (m as Record<string, unknown>)[k];
    if (typeof v !== 'string' || k.length < 1 || k.length > 64 || v.length > 512)
      throw invalid(`metadata.${k}: keys of 1 to 64 characters, string values of at most 512`);
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function view(req: TwinRequest): View {
  const v = ownValue(req.query, 'view') ?? 'basic';
  if (v !== 'basic' && v !== 'full') throw invalid("view: Input should be 'basic' or 'full'");
  return v;
}

/** Newest-first or path-ordered items, a page of `limit` after the id in `page`. */
function paged<T>(req: TwinRequest, all: T[], key: (x: T) => string) {
  const { limit } = pageQuery(req);
  const page = ownValue(req.query, 'page');
  let start = 0;
  if (typeof page === 'string' && page !== '') {
    const at = all.findIndex((x) => key(x) === page);
    if (at === -1) throw invalid('page: invalid page token');
    start = at + 1;
  }
  const data = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return { data, next_page: more ? key(data[data.length - 1]!) : null };
}

const itemKey = (x: unknown) => String(ownValue(x, 'id') ?? ownValue(x, 'path'));

export const memoryStoreRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/memory_stores',
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['name', 'description', 'metadata']);
      const name = optStr(body, 'name');
      if (name === undefined) throw invalid('name: Field required');
      return { status: 200, body: createMemoryStore(ctx, { name, description: optStr(body, 'description'), metadata: metadata(body) }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/memory_stores',
    handler: (req, ctx) => ({ status: 200, body: paged(req, listMemoryStores(ctx, ownValue(req.query, 'include_archived') === 'true'), (s) => s.id) }),
  },
  { method: 'GET', path: STORE, handler: (req, ctx) => ({ status: 200, body: retrieveMemoryStore(ctx, req.params.memory_store_id!) }) },
  {
    method: 'POST',
    path: STORE,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['name', 'description', 'metadata']);
      const raw = ownValue(body, 'metadata');
      const patch = raw && typeof raw === 'object' ? (raw as Record<string, string | null>) : undefined;
      if (patch)
        for (const [k, v] of Object.entries(patch))
          if (v !== null && typeof v !== 'string') throw invalid(`metadata.${k}: Input should be a valid string or null`);
      const description = ownValue(body, 'description');
      if (description !== undefined && description !== null && typeof description !== 'string') throw invalid('description: Input should be a valid string');
      return {
        status: 200,
        body: updateMemoryStore(ctx, req.params.memory_store_id!, {
          name: optStr(body, 'name'),
          description: description as string | null | undefined,
          metadata: patch,
        }),
      };
    },
  },
  { method: 'POST', path: `${STORE}/archive`, handler: (req, ctx) => ({ status: 200, body: archiveMemoryStore(ctx, req.params.memory_store_id!) }) },
  { method: 'DELETE', path: STORE, handler: (req, ctx) => ({ status: 200, body: deleteMemoryStore(ctx, req.params.memory_store_id!) }) },
  {
    method: 'POST',
    path: `${STORE}/memories`,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['path', 'content']);
      const path = optStr(body, 'path');
      if (path === undefined) throw invalid('path: Field required');
      return { status: 200, body: createMemory(ctx, req.params.memory_store_id!, { path, content: optStr(body, 'content') ?? '', view: view(req) }) };
    },
  },
  {
    method: 'GET',
    path: `${STORE}/memories`,
    handler(req, ctx) {
      const prefix = ownValue(req.query, 'path_prefix');
      const depth = ownValue(req.query, 'depth') ?? '0';
      if (depth !== '0' && depth !== '1') throw invalid('depth: Input should be 0 or 1');
      const items = listMemories(ctx, req.params.memory_store_id!, {
        ...(typeof prefix === 'string' ? { prefix } : {}),
        depth: Number(depth),
        view: view(req),
      });
      return { status: 200, body: paged(req, items, itemKey) };
    },
  },
  {
    method: 'GET',
    path: `${STORE}/memories/{memory_id}`,
    handler: (req, ctx) => ({ status: 200, body: retrieveMemory(ctx, req.params.memory_store_id!, req.params.memory_id!, view(req)) }),
  },
  {
    method: 'POST',
    path: `${STORE}/memories/{memory_id}`,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['path', 'content', 'precondition']);
      const pre = get(body, 'precondition');
      let sha256: string | undefined;
      if (pre !== undefined) {
        const value = ownValue(pre, 'content_sha256');
        if (ownValue(pre, 'type') !== 'content_sha256' || typeof value !== 'string')
          throw invalid("precondition: expected {type: 'content_sha256', content_sha256}");
        sha256 = value;
      }
      return {
        status: 200,
        body: updateMemory(ctx, req.params.memory_store_id!, req.params.memory_id!, {
          path: optStr(body, 'path'),
          content: optStr(body, 'content'),
          ...(sha256 !== undefined ? { sha256 } : {}),
          view: view(req),
        }),
      };
    },
  },
  {
    method: 'DELETE',
    path: `${STORE}/memories/{memory_id}`,
    handler: (req, ctx) => ({ status: 200, body: deleteMemory(ctx, req.params.memory_store_id!, req.params.memory_id!) }),
  },
  {
    method: 'GET',
    path: `${STORE}/memory_versions`,
    handler(req, ctx) {
      const memoryId = ownValue(req.query, 'memory_id');
      const operation = ownValue(req.query, 'operation');
      const items = listMemoryVersions(ctx, req.params.memory_store_id!, {
        ...(typeof memoryId === 'string' ? { memoryId } : {}),
        ...(typeof operation === 'string' ? { operation } : {}),
        view: view(req),
      });
      return { status: 200, body: paged(req, items, (v) => v.id) };
    },
  },
  {
    method: 'GET',
    path: `${STORE}/memory_versions/{memory_version_id}`,
    handler: (req, ctx) => ({ status: 200, body: retrieveMemoryVersion(ctx, req.params.memory_store_id!, req.params.memory_version_id!, view(req)) }),
  },
  {
    method: 'POST',
    path: `${STORE}/memory_versions/{memory_version_id}/redact`,
    handler: (req, ctx) => ({ status: 200, body: redactMemoryVersion(ctx, req.params.memory_store_id!, req.params.memory_version_id!) }),
  },
];
