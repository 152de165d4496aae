// Vector stores: the stores, their files, file batches, file content, and search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  addVectorStoreFile,
  cancelFileBatch,
  createFileBatch,
  createVectorStore,
  deleteVectorStore,
  deleteVectorStoreFile,
  fileBatchFiles,
  listVectorStoreFiles,
  listVectorStores,
  retrieveFileBatch,
  retrieveVectorStore,
  retrieveVectorStoreFile,
  searchVectorStore,
  updateVectorStore,
  updateVectorStoreFile,
  vectorStoreFileContent,
  type AttributeFilter,
} from '../model/vector-stores.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { get, listQuery, operationBody, optArray, optBool, optInt, optMetadata, optObject, optString, reqString, type Body } from '../wire/params.js';

const MAX_FILTER_DEPTH = 8;
const COMPARISONS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];

function readAttributes(body: Body): Record<string, string | number | boolean> {
  const a = optObject(body, 'attributes');
  if (a === undefined) return {};
  const keys = Object.keys(a);
  if (keys.length > 16) throw invalidRequest("Invalid 'attributes': at most 16 keys.", 'attributes', 'object_above_max_properties');
  const out: Record<string, string | number | boolean> = {};
  for (const k of keys) {
    const v = a[k];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw invalidRequest(`Invalid type for 'attributes.${k}': expected a string, number or boolean.`, `attributes.${k}`, 'invalid_type');
    }
    if (k.length > 64 || (typeof v === 'string' && v.length > 512))
      throw invalidRequest(`Invalid 'attributes.${k}': string too long.`, `attributes.${k}`, 'string_above_max_length');
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function readFilter(v: unknown, param: string, depth = 0): AttributeFilter {
  if (depth > MAX_FILTER_DEPTH) throw invalidRequest(`Invalid '${param}': filters nest at most ${MAX_FILTER_DEPTH} deep.`, param, 'invalid_value');
  const type = ownValue(v, 'type');
  if (type === 'and' || type === 'or') {
    const filters = ownValue(v, 'filters');
    if (!Array.isArray(filters) || filters.length > 100)
      throw invalidRequest(`Invalid '${param}.filters': expected a list of filters.`, `${param}.filters`, 'invalid_type');
    return { type, filters: filters.map((f, i) => readFilter(f, `${param}.filters[${i}]`, depth + 1)) };
  }
  if (typeof type === 'string' && COMPARISONS.includes(type)) {
    const key = ownValue(v, 'key');
    const value = ownValue(v, 'value');
    if (typeof key !== 'string') throw missingParameter(`${param}.key`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw missingParameter(`${param}.value`);
    return { type: type as 'eq', key, value };
  }
  throw invalidRequest(
    `Invalid value: '${String(type)}'. Supported values are: ${[...COMPARISONS, 'and', 'or'].map((x) => `'${x}'`).join(', ')}.`,
    `${param}.type`,
    'invalid_value',
  );
}

function expiresAfterDays(body: Body): number | undefined {
  const e = optObject(body, 'expires_after');
  if (e === undefined) return undefined;
  const days = ownValue(e, 'days');
  if (ownValue(e, 'anchor') !== 'last_active_at')
    throw invalidRequest("Invalid value for 'expires_after.anchor': expected 'last_active_at'.", 'expires_after.anchor', 'invalid_value');
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365) {
    throw invalidRequest("Invalid 'expires_after.days': expected 1 to 365.", 'expires_after.days', 'invalid_value');
  }
  return days;
}

function stringList(body: Body, key: string): string[] {
  const v = optArray(body, key) ?? [];
  if (v.length > 500) throw invalidRequest(`Invalid '${key}': at most 500 ids.`, key, 'array_above_max_length');
  if (!v.every((x) => typeof x === 'string')) throw invalidRequest(`Invalid type for '${key}': expected an array of strings.`, key, 'invalid_type');
  return v as string[];
}

function statusFilter(q: unknown): string | undefined {
  const v = ownValue(q, 'filter');
  return typeof v === 'string' ? v : undefined;
}

export const vectorStoreRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/vector_stores',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores');
      return {
        status: 200,
        body: createVectorStore(ctx, {
          name: optString(body, 'name'),
          fileIds: stringList(body, 'file_ids'),
          metadata: optMetadata(body),
          expiresAfterDays: expiresAfterDays(body),
        }),
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/vector_stores',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(listVectorStores(ctx), listQuery(req, 100, 20, 'desc')) }),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveVectorStore(ctx, req.params.vector_store_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores/{vector_store_id}');
      const clearsExpiry = Object.hasOwn(body, 'expires_after') && body.expires_after === null;
      return {
        status: 200,
        body: updateVectorStore(ctx, req.params.vector_store_id!, {
          name: optString(body, 'name'),
          metadata: optMetadata(body),
          expiresAfterDays: clearsExpiry ? null : expiresAfterDays(body),
        }),
      };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/vector_stores/{vector_store_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteVectorStore(ctx, req.params.vector_store_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}/files',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores/{vector_store_id}/files');
      return { status: 200, body: addVectorStoreFile(ctx, req.params.vector_store_id!, reqString(body, 'file_id'), readAttributes(body)) };
    },
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}/files',
    handler: (req, ctx) => ({
      status: 200,
      body: cursorPage(listVectorStoreFiles(ctx, req.params.vector_store_id!, statusFilter(req.query)), listQuery(req, 100, 20, 'desc')),
    }),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}/files/{file_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveVectorStoreFile(ctx, req.params.vector_store_id!, req.params.file_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}/files/{file_id}',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores/{vector_store_id}/files/{file_id}');
      if (get(body, 'attributes') === undefined) throw missingParameter('attributes');
      return { status: 200, body: updateVectorStoreFile(ctx, req.params.vector_store_id!, req.params.file_id!, readAttributes(body)) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/vector_stores/{vector_store_id}/files/{file_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteVectorStoreFile(ctx, req.params.vector_store_id!, req.params.file_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}/files/{file_id}/content',
    handler: (req, ctx) => ({ status: 200, body: vectorStoreFileContent(ctx, req.params.vector_store_id!, req.params.file_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}/file_batches',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores/{vector_store_id}/file_batches');
      const shared = readAttributes(body);
      const files = [
        ...stringList(body, 'file_ids').map((fileId) => ({ fileId, attributes: shared })),
        ...(optArray(body, 'files') ?? []).map((f, i) => {
          const fileId = ownValue(f, 'file_id');
          if (typeof fileId !== 'string') throw missingParameter(`files[${i}].file_id`);
          const attributes = ownValue(f, 'attributes');
          return { fileId, attributes: attributes && typeof attributes === 'object' ? readAttributes({ attributes } as Body) : shared };
        }),
      ];
      if (files.length === 0) throw missingParameter('file_ids');
      return { status: 200, body: createFileBatch(ctx, req.params.vector_store_id!, files) };
    },
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveFileBatch(ctx, req.params.vector_store_id!, req.params.batch_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel',
    handler: (req, ctx) => cancelFileBatch(ctx, req.params.vector_store_id!, req.params.batch_id!),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files',
    handler: (req, ctx) => ({
      status: 200,
      body: cursorPage(fileBatchFiles(ctx, req.params.vector_store_id!, req.params.batch_id!, statusFilter(req.query)), listQuery(req, 100, 20, 'desc')),
    }),
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/{vector_store_id}/search',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/vector_stores/{vector_store_id}/search');
      const query = get(body, 'query');
      if (query === undefined) throw missingParameter('query');
      const queries = typeof query === 'string' ? [query] : Array.isArray(query) && query.every((x) => typeof x === 'string') ? (query as string[]) : undefined;
      if (!queries || queries.length === 0 || queries.join(' ').length > 10_000)
        throw invalidRequest("Invalid 'query': expected a string or a list of strings.", 'query', 'invalid_type');
      optBool(body, 'rewrite_query');
      const ranking = optObject(body, 'ranking_options');
      const threshold = ownValue(ranking, 'score_threshold');
      const filter = get(body, 'filters');
      return {
        status: 200,
        body: searchVectorStore(ctx, req.params.vector_store_id!, {
          queries,
          maxResults: optInt(body, 'max_num_results', 1, 50) ?? 10,
          ...(filter !== undefined ? { filter: readFilter(filter, 'filters') } : {}),
          scoreThreshold: typeof threshold === 'number' ? threshold : 0,
        }),
      };
    },
  },
];
