// Uploads: POST /v1/uploads, POST /v1/uploads/{id}/parts (multipart `data`), POST …/complete,
// POST …/cancel.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { isPurpose, PURPOSES } from '../model/files.js';
import { addUploadPart, cancelUpload, completeUpload, createUpload } from '../model/uploads.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { get, operationBody, optArray, optObject, optString, reqString } from '../wire/params.js';

const MAX_EXPIRY_SECONDS = 30 * 86_400;

export const uploadRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/uploads',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/uploads');
      const bytes = get(body, 'bytes');
      if (bytes === undefined) throw missingParameter('bytes');
      if (typeof bytes !== 'number' || !Number.isInteger(bytes))
        throw invalidRequest("Invalid type for 'bytes': expected an integer.", 'bytes', 'invalid_type');
      const purpose = reqString(body, 'purpose');
      if (!isPurpose(purpose)) {
        throw invalidRequest(`'${purpose}' is not one of ${PURPOSES.map((p) => `'${p}'`).join(', ')} - 'purpose'`, 'purpose', 'invalid_value');
      }
      const expires = optObject(body, 'expires_after');
      let expiresAfterSeconds: number | undefined;
      if (expires) {
        const seconds = ownValue(expires, 'seconds');
        if (ownValue(expires, 'anchor') !== 'created_at')
          throw invalidRequest("Invalid value for 'expires_after.anchor': expected 'created_at'.", 'expires_after.anchor', 'invalid_value');
        if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 3600 || seconds > MAX_EXPIRY_SECONDS) {
          throw invalidRequest(`Invalid 'expires_after.seconds': expected 3600 to ${MAX_EXPIRY_SECONDS}.`, 'expires_after.seconds', 'invalid_value');
        }
        expiresAfterSeconds = seconds;
      }
      return {
        status: 200,
        body: createUpload(ctx, { bytes, filename: reqString(body, 'filename'), mimeType: reqString(body, 'mime_type'), purpose, expiresAfterSeconds }),
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/uploads/{upload_id}/parts',
    async handler(req, ctx) {
      const form = await readMultipart(req);
      const data = form.files.get('data');
      if (!data) throw missingParameter('data');
      return { status: 200, body: addUploadPart(ctx, req.params.upload_id!, data.content) };
    },
  },
  {
    method: 'POST',
    path: '/v1/uploads/{upload_id}/complete',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/uploads/{upload_id}/complete');
      const partIds = optArray(body, 'part_ids');
      if (partIds === undefined) throw missingParameter('part_ids');
      if (!partIds.every((p) => typeof p === 'string'))
        throw invalidRequest("Invalid type for 'part_ids': expected an array of strings.", 'part_ids', 'invalid_type');
      return { status: 200, body: completeUpload(ctx, req.params.upload_id!, partIds as string[], optString(body, 'md5')) };
    },
  },
  { method: 'POST', path: '/v1/uploads/{upload_id}/cancel', handler: (req, ctx) => ({ status: 200, body: cancelUpload(ctx, req.params.upload_id!) }) },
];
