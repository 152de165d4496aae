// Conversations: a conversation's items (messages, function calls and their outputs) kept by the
// twin, listed, added to and deleted; a response created with `conversation` reads them as its
// history and appends its input and output to them, as the Responses API does.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import type { InputItem } from './responses.js';

export const CONVERSATION = 'conversation';

/** At most this many items per create or add request (OpenAI's limit). */
export const MAX_ITEMS_PER_REQUEST = 20;
/** Items a conversation keeps in the twin (a bound on the record's size). */
const MAX_ITEMS = 10_000;

export interface ConversationObject {
  id: string;
  object: 'conversation';
  created_at: number;
  metadata: Record<string, string>;
}

type ConversationItem = InputItem & { id: string };

interface StoredConversation {
  conversation: ConversationObject;
  items: ConversationItem[];
}

/** An item as the API lists it (input items, conversation items): messages with their content parts. */
export function renderItem(item: InputItem & { id: string }) {
  if (item.type === 'message') {
    const content = Array.isArray(item.content) ? item.content : [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.text }];
    return { id: item.id, type: 'message', role: item.role, status: 'completed', content };
  }
  return { ...item, status: 'completed' };
}

function stored(ctx: TwinContext, id: string): StoredConversation {
  const s = ctx.store.get<StoredConversation>(CONVERSATION, id);
  if (!s) throw new OpenAIError(404, `Conversation with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

function checkCount(n: number, param: string): void {
  if (n > MAX_ITEMS_PER_REQUEST) {
    throw invalidRequest(
      `Invalid '${param}': array too long. Expected an array with maximum length ${MAX_ITEMS_PER_REQUEST}, but got an array with length ${n} instead.`,
      param,
      'array_above_max_length',
    );
  }
}

function withIds(ctx: TwinContext, items: InputItem[]): ConversationItem[] {
  return items.map((item) => ({ ...item, id: ctx.ids.nextIn('msg', 'msg_', 48) }));
}

function save(ctx: TwinContext, s: StoredConversation): void {
  if (s.items.length > MAX_ITEMS) throw invalidRequest(`A conversation holds at most ${MAX_ITEMS} items.`, 'items', null);
  ctx.store.put(CONVERSATION, s.conversation.id, s);
}

export function createConversation(ctx: TwinContext, input: { items: InputItem[]; metadata?: Record<string, string> }): ConversationObject {
  checkCount(input.items.length, 'items');
  const conversation: ConversationObject = {
    id: ctx.ids.nextIn('conv', 'conv_', 48),
    object: 'conversation',
    created_at: ctx.clock.nowSeconds(),
    metadata: input.metadata ?? {},
  };
  save(ctx, { conversation, items: withIds(ctx, input.items) });
  return conversation;
}

export function retrieveConversation(ctx: TwinContext, id: string): ConversationObject {
  return stored(ctx, id).conversation;
}

export function updateConversation(ctx: TwinContext, id: string, metadata: Record<string, string>): ConversationObject {
  const s = stored(ctx, id);
  s.conversation = { ...s.conversation, metadata };
  save(ctx, s);
  return s.conversation;
}

export function deleteConversation(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(CONVERSATION, id);
  return { id, object: 'conversation.deleted' as const, deleted: true as const };
}

/** The items oldest first, as the API renders them. */
export function conversationItems(ctx: TwinContext, id: string) {
  return stored(ctx, id).items.map(renderItem);
}

export function addConversationItems(ctx: TwinContext, id: string, items: InputItem[]) {
  checkCount(items.length, 'items');
  const s = stored(ctx, id);
  const added = withIds(ctx, items);
  s.items.push(...added);
  save(ctx, s);
  const data = added.map(renderItem);
  return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: false };
}

export function retrieveConversationItem(ctx: TwinContext, id: string, itemId: string) {
  const item = stored(ctx, id).items.find((i) => i.id === itemId);
  if (!item) throw new OpenAIError(404, `Item with id '${itemId}' not found.`, 'invalid_request_error', null, null);
  return renderItem(item);
}

/** Deleting an item answers with the conversation, as the API does. */
export function deleteConversationItem(ctx: TwinContext, id: string, itemId: string): ConversationObject {
  const s = stored(ctx, id);
  const at = s.items.findIndex((i) => i.id === itemId);
  if (at === -1) throw new OpenAIError(404, `Item with id '${itemId}' not found.`, 'invalid_request_error', null, null);
  s.items.splice(at, 1);
  save(ctx, s);
  return s.conversation;
}

/** A response's history: the conversation's items (a 404 for an unknown conversation, before anything is generated). */
export function conversationHistory(ctx: TwinContext, id: string): InputItem[] {
  return stored(ctx, id).items.map(({ id: _id, ...item }) => item as InputItem);
}

/** A response's input and output join its conversation (output items keep their own ids). */
export function appendTurn(ctx: TwinContext, id: string, input: InputItem[], output: ConversationItem[]): void {
  const s = stored(ctx, id);
  s.items.push(...withIds(ctx, input), ...output);
  save(ctx, s);
}
