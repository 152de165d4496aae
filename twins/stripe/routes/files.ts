// /v1/files (multipart upload, retrieve, list, the bytes at `url`), /v1/file_links and the public
// `/links/{token}` a link's `url` points at (model/files.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { readMultipartParams } from '../wire/multipart.js';
import { bool, int, obj, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  createFile,
  createFileLink,
  fileContents,
  getFile,
  getFileLink,
  linkedContents,
  listFileLinks,
  listFiles,
  updateFileLink,
  withLinks,
  type FileLinkUpdate,
} from '../model/files.js';

function readLinkData(p: Params): { expiresAt?: number; metadata?: ReturnType<typeof readMetadata> } | undefined {
  const data = obj(p, 'file_link_data');
  if (!data || bool(data, 'create', 'file_link_data') !== true) return undefined;
  return { expiresAt: int(data, 'expires_at', 'file_link_data'), metadata: readMetadata(data) };
}

function readExpiresAt(p: Params): FileLinkUpdate['expiresAt'] {
  const v = p.expires_at;
  if (v === undefined) return undefined;
  if (v === '') return null;
  return v === 'now' ? 'now' : int(p, 'expires_at');
}

const NOT_FOUND = { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Not Found' };

export const fileRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/files',
    async handler(req, ctx) {
      const { params, file } = await readMultipartParams(req, 'file');
      return ok(createFile(ctx, { purpose: requiredStr(params, 'purpose'), filename: file.filename, content: file.content, link: readLinkData(params) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/files',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listFiles(ctx, str(p, 'purpose'), readListWindow(p)), '/v1/files'));
    },
  },
  {
    method: 'GET',
    path: '/v1/files/{file}',
    handler: (req, ctx) => (readParams(req), ok(withLinks(ctx, getFile(ctx, req.params.file!)))),
  },
  {
    // files.stripe.com/v1/files/{id}/contents: the download a File's `url` names (secret key only).
    method: 'GET',
    path: '/v1/files/{file}/contents',
    handler: (req, ctx) => {
      const { content, mimeType } = fileContents(ctx, req.params.file!);
      return { status: 200, headers: { 'content-type': mimeType }, body: content };
    },
  },
  {
    method: 'POST',
    path: '/v1/file_links',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(createFileLink(ctx, { file: requiredStr(p, 'file'), expiresAt: int(p, 'expires_at'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/file_links',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listFileLinks(ctx, { file: str(p, 'file'), expired: bool(p, 'expired') }, readListWindow(p)), '/v1/file_links'));
    },
  },
  {
    method: 'GET',
    path: '/v1/file_links/{link}',
    handler: (req, ctx) => (readParams(req), ok(getFileLink(ctx, req.params.link!))),
  },
  {
    method: 'POST',
    path: '/v1/file_links/{link}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateFileLink(ctx, req.params.link!, { expiresAt: readExpiresAt(p), metadata: readMetadata(p) }));
    },
  },
  {
    // A link's `url`: anyone holding it reads the file, until the link expires.
    method: 'GET',
    path: '/links/{token}',
    public: true,
    handler: (req, ctx) => {
      const found = linkedContents(ctx, req.params.token!);
      if (!found) return NOT_FOUND;
      const name = found.filename.replace(/[^\w.-]/g, '_');
      return { status: 200, headers: { 'content-type': found.mimeType, 'content-disposition': `inline; filename="${name}"` }, body: found.content };
    },
  },
];
