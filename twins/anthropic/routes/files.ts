// The Files API (beta): POST /v1/files (multipart), GET /v1/files, GET /v1/files/{file_id},
// GET /v1/files/{file_id}/content, DELETE /v1/files/{file_id}.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { readMultipart } from '../../../twin-runtime/multipart.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { deleteFile, downloadFile, listFiles, retrieveFile, uploadFile } from '../model/files.js';
import { invalid } from '../wire/errors.js';
import { pageQuery } from '../wire/params.js';

const MAX_EXPIRY_SECONDS = 10 * 365 * 86_400;

function idsQuery(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  const ids = (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === 'string' ? x.split(',') : [])).filter((x) => x !== '');
  if (ids.length > 100) throw invalid('ids: at most 100 ids');
  return ids;
}

export const fileRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/files',
    async handler(req, ctx) {
      const form = await readMultipart(req, invalid);
      const file = form.files.get('file');
      if (!file) throw invalid('file: Field required');
      const extra = [...form.fields.keys(), ...form.files.keys()].find((k) => k !== 'file' && k !== 'expires_in_seconds');
      if (extra !== undefined) throw invalid(`${extra}: Extra inputs are not permitted`);
      const rawExpiry = form.fields.get('expires_in_seconds');
      let expiresInSeconds: number | undefined;
      if (rawExpiry !== undefined) {
        expiresInSeconds = Number(rawExpiry);
        if (!/^\d+$/.test(rawExpiry) || expiresInSeconds < 1 || expiresInSeconds > MAX_EXPIRY_SECONDS) {
          throw invalid(`expires_in_seconds: Input should be a whole number from 1 to ${MAX_EXPIRY_SECONDS}`);
        }
      }
      return { status: 200, body: uploadFile(ctx, { filename: file.filename, mimeType: file.type, content: file.content, expiresInSeconds }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/files',
    handler(req, ctx) {
      const { limit } = pageQuery(req);
      const page = ownValue(req.query, 'page');
      const scope = ownValue(req.query, 'scope_id');
      return {
        status: 200,
        body: listFiles(ctx, {
          limit,
          ...(typeof page === 'string' && page !== '' ? { page } : {}),
          ...(typeof scope === 'string' ? { scopeId: scope } : {}),
          ids: idsQuery(ownValue(req.query, 'ids')),
        }),
      };
    },
  },
  { method: 'GET', path: '/v1/files/{file_id}', handler: (req, ctx) => ({ status: 200, body: retrieveFile(ctx, req.params.file_id!) }) },
  {
    method: 'GET',
    path: '/v1/files/{file_id}/content',
    handler: (req, ctx) => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: downloadFile(ctx, req.params.file_id!) }),
  },
  { method: 'DELETE', path: '/v1/files/{file_id}', handler: (req, ctx) => ({ status: 200, body: deleteFile(ctx, req.params.file_id!) }) },
];
