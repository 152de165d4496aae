// Files: upload (multipart), list, retrieve, content, delete.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { createFile, deleteFile, fileContent, isPurpose, listFiles, PURPOSES, retrieveFile } from '../model/files.js';
import { invalidRequest } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { cursorPage } from '../wire/pagination.js';
import { listQuery } from '../wire/params.js';

export const fileRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/files',
    async handler(req, ctx) {
      const form = await readMultipart(req);
      const purpose = form.fields.get('purpose');
      if (purpose === undefined) throw invalidRequest("Missing required parameter: 'purpose'.", 'purpose', 'missing_required_parameter');
      if (!isPurpose(purpose)) {
        throw invalidRequest(`'${purpose}' is not one of ${PURPOSES.map((p) => `'${p}'`).join(', ')} - 'purpose'`, 'purpose', 'invalid_value');
      }
      const file = form.files.get('file');
      if (!file) throw invalidRequest("Missing required parameter: 'file'.", 'file', 'missing_required_parameter');
      return { status: 200, body: createFile(ctx, { filename: file.filename, purpose, content: file.content }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/files',
    handler(req, ctx) {
      const q = listQuery(req, 10_000, 10_000, 'desc');
      const purpose = ownValue(req.query, 'purpose');
      return { status: 200, body: cursorPage(listFiles(ctx, typeof purpose === 'string' ? purpose : undefined), q) };
    },
  },
  { method: 'GET', path: '/v1/files/{file_id}', handler: (req, ctx) => ({ status: 200, body: retrieveFile(ctx, req.params.file_id!) }) },
  {
    method: 'GET',
    path: '/v1/files/{file_id}/content',
    handler: (req, ctx) => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: fileContent(ctx, req.params.file_id!) }),
  },
  { method: 'DELETE', path: '/v1/files/{file_id}', handler: (req, ctx) => ({ status: 200, body: deleteFile(ctx, req.params.file_id!) }) },
];
