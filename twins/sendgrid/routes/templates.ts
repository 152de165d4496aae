// Transactional templates and versions (`/v3/templates`), as the Templates API answers them.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import {
  activateVersion,
  createTemplate,
  createVersion,
  deleteTemplate,
  duplicateTemplate,
  deleteVersion,
  renameTemplate,
  requireTemplate,
  requireVersion,
  templateView,
  updateVersion,
  versionView,
} from '../model/templates.js';
import type { TemplateRecord } from '../model/records.js';
import { SendGridError } from '../wire/errors.js';
import { jsonBody, queryParam } from '../wire/params.js';

const T = '/v3/templates';

export const templateRoutes: TwinRoute[] = [
  { method: 'POST', path: T, handler: (req, ctx) => ({ status: 201, body: templateView(ctx, createTemplate(ctx, jsonBody(req))) }) },
  {
    method: 'GET',
    path: T,
    handler(req, ctx) {
      const generations = (queryParam(req, 'generations') ?? 'legacy').split(',');
      if (generations.some((g) => g !== 'legacy' && g !== 'dynamic'))
        throw new SendGridError(400, [{ field: 'generations', message: "generations must be 'legacy', 'dynamic' or 'legacy,dynamic'", help: null }]);
      const size = Number(queryParam(req, 'page_size') ?? 200);
      if (!Number.isInteger(size) || size < 1 || size > 200)
        throw new SendGridError(400, [{ field: 'page_size', message: 'page_size must be an integer from 1 to 200', help: null }]);
      const all = ctx.store.list<TemplateRecord>('template').filter((t) => generations.includes(t.generation));
      // page_token is the id of the first template of the page (opaque to callers).
      const token = queryParam(req, 'page_token');
      const start = token
        ? Math.max(
            0,
            all.findIndex((t) => t.id === token),
          )
        : 0;
      const page = all.slice(start, start + size);
      const next = all[start + size];
      const self = `${ctx.baseUrl}${T}?page_size=${size}`;
      return {
        status: 200,
        body: {
          result: page.map((t) => templateView(ctx, t)),
          _metadata: { self, count: all.length, ...(next ? { next: `${self}&page_token=${next.id}` } : {}) },
        },
      };
    },
  },
  {
    method: 'GET',
    path: `${T}/{template_id}`,
    handler: (req, ctx) => ({ status: 200, body: templateView(ctx, requireTemplate(ctx, req.params.template_id!)) }),
  },
  {
    method: 'POST',
    path: `${T}/{template_id}`,
    handler: (req, ctx) => ({ status: 201, body: templateView(ctx, duplicateTemplate(ctx, req.params.template_id!, jsonBody(req))) }),
  },
  {
    method: 'PATCH',
    path: `${T}/{template_id}`,
    handler: (req, ctx) => ({ status: 200, body: templateView(ctx, renameTemplate(ctx, req.params.template_id!, jsonBody(req))) }),
  },
  {
    method: 'DELETE',
    path: `${T}/{template_id}`,
    handler(req, ctx) {
      deleteTemplate(ctx, req.params.template_id!);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: `${T}/{template_id}/versions`,
    handler: (req, ctx) => ({ status: 201, body: versionView(createVersion(ctx, req.params.template_id!, jsonBody(req))) }),
  },
  {
    method: 'GET',
    path: `${T}/{template_id}/versions/{version_id}`,
    handler: (req, ctx) => ({ status: 200, body: versionView(requireVersion(ctx, req.params.template_id!, req.params.version_id!).version) }),
  },
  {
    method: 'PATCH',
    path: `${T}/{template_id}/versions/{version_id}`,
    handler: (req, ctx) => ({ status: 200, body: versionView(updateVersion(ctx, req.params.template_id!, req.params.version_id!, jsonBody(req))) }),
  },
  {
    method: 'POST',
    path: `${T}/{template_id}/versions/{version_id}/activate`,
    handler: (req, ctx) => ({ status: 200, body: versionView(activateVersion(ctx, req.params.template_id!, req.params.version_id!)) }),
  },
  {
    method: 'DELETE',
    path: `${T}/{template_id}/versions/{version_id}`,
    handler(req, ctx) {
      deleteVersion(ctx, req.params.template_id!, req.params.version_id!);
      return { status: 204 };
    },
  },
];
