// File uploads: create, send (multipart/form-data), complete, retrieve, list; and the twin-only
// download of an attached file's bytes (the URL a file block answers).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { readMultipart } from '../../../twin-runtime/multipart.js';
import { validation } from '../wire/errors.js';
import { jsonBody, pageRequest, paginate, pathId } from '../wire/params.js';
import { completeUpload, contentOf, createFileUpload, fileUploadView, getFileUpload, listFileUploads, sendPart } from '../model/file-uploads.js';

export const fileUploadRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/file_uploads', handler: (req, ctx) => ({ status: 200, body: fileUploadView(ctx, createFileUpload(ctx, jsonBody(req))) }) },
  {
    method: 'GET',
    path: '/v1/file_uploads',
    handler: (req, ctx) => ({
      status: 200,
      body: paginate(
        listFileUploads(ctx, req.query.status),
        pageRequest(req),
        (f) => f.id,
        (f) => fileUploadView(ctx, f),
        'file_upload',
      ),
    }),
  },
  {
    method: 'GET',
    path: '/v1/file_uploads/{file_upload_id}',
    handler: (req, ctx) => ({ status: 200, body: fileUploadView(ctx, getFileUpload(ctx, pathId(req, 'file_upload_id'))) }),
  },
  {
    method: 'POST',
    path: '/v1/file_uploads/{file_upload_id}/send',
    async handler(req, ctx) {
      const form = await readMultipart(req, (message) => validation(message));
      return { status: 200, body: fileUploadView(ctx, sendPart(ctx, pathId(req, 'file_upload_id'), form.files.get('file'), form.fields.get('part_number'))) };
    },
  },
  {
    method: 'POST',
    path: '/v1/file_uploads/{file_upload_id}/complete',
    handler: (req, ctx) => ({ status: 200, body: fileUploadView(ctx, completeUpload(ctx, pathId(req, 'file_upload_id'))) }),
  },
  {
    method: 'GET',
    path: '/v1/twin/file_uploads/{file_upload_id}/content',
    unmetered: true,
    handler(req, ctx) {
      const f = getFileUpload(ctx, pathId(req, 'file_upload_id'));
      return { status: 200, headers: { 'content-type': f.content_type ?? 'application/octet-stream' }, body: contentOf(f) };
    },
  },
];
