// Containers: POST/GET /v1/containers, GET/DELETE /v1/containers/{id}, and their files (upload as
// multipart `file` or JSON `file_id`, list, retrieve, content, delete).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  addContainerFile,
  containerFileContent,
  createContainer,
  deleteContainer,
  deleteContainerFile,
  listContainerFiles,
  listContainers,
  retrieveContainer,
  retrieveContainerFile,
  type ContainerObject,
} from '../model/containers.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { cursorPage } from '../wire/pagination.js';
import { get, listQuery, operationBody, optArray, optObject, optString, reqString } from '../wire/params.js';

const MEMORY_LIMITS = ['1g', '4g', '16g', '64g'];

export const containerRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/containers',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/containers');
      if (get(body, 'skills') !== undefined) throw new NotSimulated('POST /v1/containers with skills', 'The twin runs no code, so it mounts no skills.');
      const fileIds = optArray(body, 'file_ids') ?? [];
      if (!fileIds.every((f) => typeof f === 'string') || fileIds.length > 100)
        throw invalidRequest("Invalid 'file_ids': expected at most 100 file ids.", 'file_ids', 'invalid_type');
      const expires = optObject(body, 'expires_after');
      let minutes: number | undefined;
      if (expires) {
        const m = ownValue(expires, 'minutes');
        if (ownValue(expires, 'anchor') !== 'last_active_at')
          throw invalidRequest("Invalid value for 'expires_after.anchor': expected 'last_active_at'.", 'expires_after.anchor', 'invalid_value');
        if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > 20)
          throw invalidRequest("Invalid 'expires_after.minutes': expected 1 to 20.", 'expires_after.minutes', 'invalid_value');
        minutes = m;
      }
      const memory = optString(body, 'memory_limit');
      if (memory !== undefined && !MEMORY_LIMITS.includes(memory)) {
        throw invalidRequest(
          `Invalid value: '${memory}'. Supported values are: ${MEMORY_LIMITS.map((x) => `'${x}'`).join(', ')}.`,
          'memory_limit',
          'invalid_value',
        );
      }
      return {
        status: 200,
        body: createContainer(ctx, {
          name: reqString(body, 'name'),
          fileIds: fileIds as string[],
          expiresAfterMinutes: minutes,
          memoryLimit: memory as ContainerObject['memory_limit'] | undefined,
          networkPolicy: optObject(body, 'network_policy'),
        }),
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/containers',
    handler(req, ctx) {
      const name = ownValue(req.query, 'name');
      return { status: 200, body: cursorPage(listContainers(ctx, typeof name === 'string' ? name : undefined), listQuery(req, 100, 20, 'desc')) };
    },
  },
  { method: 'GET', path: '/v1/containers/{container_id}', handler: (req, ctx) => ({ status: 200, body: retrieveContainer(ctx, req.params.container_id!) }) },
  { method: 'DELETE', path: '/v1/containers/{container_id}', handler: (req, ctx) => ({ status: 200, body: deleteContainer(ctx, req.params.container_id!) }) },
  {
    method: 'POST',
    path: '/v1/containers/{container_id}/files',
    async handler(req, ctx) {
      if (req.bodyKind === 'json') {
        const body = operationBody(req, 'POST /v1/containers/{container_id}/files');
        return { status: 200, body: addContainerFile(ctx, req.params.container_id!, { fileId: reqString(body, 'file_id') }) };
      }
      const form = await readMultipart(req);
      const file = form.files.get('file');
      const fileId = form.fields.get('file_id');
      if (!file && fileId === undefined) throw missingParameter('file');
      const input = file ? { filename: file.filename, content: file.content } : { fileId: fileId! };
      return { status: 200, body: addContainerFile(ctx, req.params.container_id!, input) };
    },
  },
  {
    method: 'GET',
    path: '/v1/containers/{container_id}/files',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(listContainerFiles(ctx, req.params.container_id!), listQuery(req, 100, 20, 'desc')) }),
  },
  {
    method: 'GET',
    path: '/v1/containers/{container_id}/files/{file_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveContainerFile(ctx, req.params.container_id!, req.params.file_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/containers/{container_id}/files/{file_id}/content',
    handler: (req, ctx) => ({
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: containerFileContent(ctx, req.params.container_id!, req.params.file_id!),
    }),
  },
  {
    method: 'DELETE',
    path: '/v1/containers/{container_id}/files/{file_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteContainerFile(ctx, req.params.container_id!, req.params.file_id!) }),
  },
];
