// Blocks: retrieve, update, delete (to the trash), list and append children.

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { field, jsonBody, pageRequest, paginate, pathId } from '../wire/params.js';
import { apiVersion } from '../wire/version.js';
import { appendChildren, blockView, findBlock, listChildren, updateBlock } from '../model/blocks.js';
import { updateDatabase } from '../model/databases.js';
import { updatePage } from '../model/pages.js';

type Node = ReturnType<typeof findBlock>;

function trashNode(ctx: TwinContext, node: Node, inTrash: boolean): void {
  if (node.kind === 'page') updatePage(ctx, node.page.id, { in_trash: inTrash });
  else if (node.kind === 'database') updateDatabase(ctx, node.db.id, { in_trash: inTrash }, { version: '', dataSources: true });
}

export const blockRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/blocks/{block_id}',
    handler: (req, ctx) => ({ status: 200, body: blockView(ctx, findBlock(ctx, pathId(req, 'block_id')), apiVersion(req)) }),
  },
  {
    method: 'PATCH',
    path: '/v1/blocks/{block_id}',
    handler: (req, ctx) => ({
      status: 200,
      body: blockView(
        ctx,
        updateBlock(ctx, pathId(req, 'block_id'), jsonBody(req), (n, t) => trashNode(ctx, n, t)),
        apiVersion(req),
      ),
    }),
  },
  {
    method: 'DELETE',
    path: '/v1/blocks/{block_id}',
    handler: (req, ctx) => ({
      status: 200,
      body: blockView(
        ctx,
        updateBlock(ctx, pathId(req, 'block_id'), { in_trash: true }, (n, t) => trashNode(ctx, n, t)),
        apiVersion(req),
      ),
    }),
  },
  {
    method: 'GET',
    path: '/v1/blocks/{block_id}/children',
    handler: (req, ctx) => {
      const api = apiVersion(req);
      return {
        status: 200,
        body: paginate(
          listChildren(ctx, pathId(req, 'block_id')),
          pageRequest(req),
          (n) => (n.kind === 'block' ? n.block.id : n.kind === 'page' ? n.page.id : n.db.id),
          (n) => blockView(ctx, n, api),
          'block',
        ),
      };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/blocks/{block_id}/children',
    handler: (req, ctx) => {
      const api = apiVersion(req);
      const body = jsonBody(req);
      const ids = appendChildren(ctx, pathId(req, 'block_id'), field(body, 'children'), field(body, 'after'));
      return {
        status: 200,
        body: {
          object: 'list',
          results: ids.map((id) => blockView(ctx, findBlock(ctx, id), api)),
          next_cursor: null,
          has_more: false,
          type: 'block',
          block: {},
        },
      };
    },
  },
];
