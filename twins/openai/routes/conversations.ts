// Conversations: POST/GET/POST(update)/DELETE /v1/conversations/{id}, and its items (list, add,
// retrieve, delete).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import {
  addConversationItems,
  conversationItems,
  createConversation,
  deleteConversation,
  deleteConversationItem,
  retrieveConversation,
  retrieveConversationItem,
  updateConversation,
} from '../model/conversations.js';
import { invalidRequest } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { listQuery, operationBody, optMetadata } from '../wire/params.js';
import { readInput } from './responses.js';

export const conversationRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/conversations',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/conversations');
      return { status: 200, body: createConversation(ctx, { items: readInput(body, 'items'), metadata: optMetadata(body) }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/conversations/{conversation_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveConversation(ctx, req.params.conversation_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/conversations/{conversation_id}',
    handler(req, ctx) {
      const metadata = optMetadata(operationBody(req, 'POST /v1/conversations/{conversation_id}'));
      if (metadata === undefined) throw invalidRequest("Missing required parameter: 'metadata'.", 'metadata', 'missing_required_parameter');
      return { status: 200, body: updateConversation(ctx, req.params.conversation_id!, metadata) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/conversations/{conversation_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteConversation(ctx, req.params.conversation_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/conversations/{conversation_id}/items',
    handler(req, ctx) {
      const q = listQuery(req, 100, 20, 'desc');
      return { status: 200, body: cursorPage(conversationItems(ctx, req.params.conversation_id!), q) };
    },
  },
  {
    method: 'POST',
    path: '/v1/conversations/{conversation_id}/items',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/conversations/{conversation_id}/items');
      const items = readInput(body, 'items');
      if (items.length === 0) throw invalidRequest("Missing required parameter: 'items'.", 'items', 'missing_required_parameter');
      return { status: 200, body: addConversationItems(ctx, req.params.conversation_id!, items) };
    },
  },
  {
    method: 'GET',
    path: '/v1/conversations/{conversation_id}/items/{item_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveConversationItem(ctx, req.params.conversation_id!, req.params.item_id!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/conversations/{conversation_id}/items/{item_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteConversationItem(ctx, req.params.conversation_id!, req.params.item_id!) }),
  },
];
