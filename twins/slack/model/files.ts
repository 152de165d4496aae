// Files: the two-step upload files.uploadV2 performs (files.getUploadURLExternal → POST the bytes
// to the upload URL → files.completeUploadExternal shares them), a person's upload
// (twin.files.upload), info/list/delete/sharedPublicURL. A share is a `file_share` message in the
// conversation's history carrying the file, and fires `file_shared`. The bytes are kept beside the
// record (`content_b64`, never shown) and served at url_private with a token.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { postMessage } from './messages.js';
import type { Conversation, User } from './records.js';
import { slackId } from './slack-ids.js';
import { currentTeam } from './workspace.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface FileRecord {
  file: Record<string, unknown>;
  /** pending until the bytes arrive at the upload URL, then uploaded; completed once shared/finished. */
  state: 'pending' | 'uploaded' | 'complete';
  upload_token: string;
  declared_length: number;
  content_b64: string | null;
  deleted: boolean;
}

const TYPES: Record<string, [string, string, string]> = {
  txt: ['text', 'Plain Text', 'text/plain'],
  md: ['markdown', 'Markdown (raw)', 'text/plain'],
  csv: ['csv', 'CSV', 'text/csv'],
  json: ['json', 'JSON', 'application/json'],
  log: ['text', 'Plain Text', 'text/plain'],
  png: ['png', 'PNG', 'image/png'],
  jpg: ['jpg', 'JPEG', 'image/jpeg'],
  jpeg: ['jpg', 'JPEG', 'image/jpeg'],
  gif: ['gif', 'GIF', 'image/gif'],
  pdf: ['pdf', 'PDF', 'application/pdf'],
  zip: ['zip', 'Zip', 'application/zip'],
};

function typeOf(name: string): [string, string, string] {
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  return TYPES[ext] ?? ['binary', 'Binary', 'application/octet-stream'];
}

function baseUrl(ctx: TwinContext): string {
  return ctx.baseUrl.replace(/\/+$/, '');
}

export function getFile(ctx: TwinContext, id: string | undefined): FileRecord {
  const rec = id ? ctx.store.get<FileRecord>('file', id) : undefined;
  if (!rec || rec.deleted || rec.state === 'pending') throw new SlackError('file_not_found');
  return rec;
}

/** files.getUploadURLExternal: a file id and the URL to POST its bytes to. */
export function reserveUpload(ctx: TwinContext, owner: User, filename: string, length: number, altText?: string): { upload_url: string; file_id: string } {
  if (!Number.isInteger(length) || length < 1) throw new SlackError('invalid_length');
  if (length > MAX_FILE_BYTES) throw new SlackError('file_too_large');
  const id = slackId(ctx, 'F');
  const team = currentTeam(ctx);
  const [filetype, pretty, mimetype] = typeOf(filename);
  const now = ctx.clock.nowSeconds();
  const token = ctx.ids.token(32);
  const file: Record<string, unknown> = {
    id,
    created: now,
    timestamp: now,
    name: filename,
    title: filename,
    mimetype,
    filetype,
    pretty_type: pretty,
    user: owner.id,
    user_team: team.id,
    editable: false,
    size: length,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: false,
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `${baseUrl(ctx)}/files-pri/${team.id}-${id}/${encodeURIComponent(filename)}`,
    url_private_download: `${baseUrl(ctx)}/files-pri/${team.id}-${id}/download/${encodeURIComponent(filename)}`,
    permalink: `${team.url ?? `https://${team.domain}.slack.com/`}files/${owner.id}/${id}/${encodeURIComponent(filename)}`,
    permalink_public: `https://slack-files.com/${team.id}-${id}-${ctx.ids.bytes(5).toString('hex')}`,
    comments_count: 0,
    is_starred: false,
    shares: {},
    channels: [],
    groups: [],
    ims: [],
    has_rich_preview: false,
    file_access: 'visible',
  };
  if (altText) file.alt_txt = altText;
  ctx.store.put('file', id, { file, state: 'pending', upload_token: token, declared_length: length, content_b64: null, deleted: false } satisfies FileRecord);
  return { upload_url: `${baseUrl(ctx)}/upload/v1/${id}/${token}`, file_id: id };
}

/** The bytes arrive at the upload URL. */
export function receiveUpload(ctx: TwinContext, id: string, token: string, bytes: Buffer): number {
  const rec = ctx.store.get<FileRecord>('file', id);
  if (!rec || rec.upload_token !== token || rec.state !== 'pending') throw new SlackError('invalid_upload_url');
  if (bytes.length > MAX_FILE_BYTES) throw new SlackError('file_too_large');
  const file = { ...rec.file, size: bytes.length };
  ctx.store.put('file', id, { ...rec, file, state: 'uploaded', content_b64: bytes.toString('base64') });
  return bytes.length;
}

/** Share uploaded files in a conversation (or just finish them, private, when no channel). */
export function completeUploads(
  ctx: TwinContext,
  actor: User,
  items: { id: string; title?: string }[],
  share?: { conversation: Conversation; initialComment?: string; threadTs?: string; blocks?: unknown },
): Record<string, unknown>[] {
  if (items.length === 0 || items.length > 100) throw invalidArguments('files must list 1 to 100 {id, title}');
  const recs = items.map((item) => {
    const rec = ctx.store.get<FileRecord>('file', item.id);
    if (!rec || rec.deleted || rec.file.user !== actor.id) throw new SlackError('file_not_found');
    if (rec.state === 'pending') throw new SlackError('file_upload_incomplete');
    if (rec.state === 'complete') throw new SlackError('file_already_completed');
    const file: Record<string, unknown> = { ...rec.file, ...(item.title ? { title: item.title } : {}) };
    return { ...rec, file, state: 'complete' as const };
  });
  if (!share) {
    for (const r of recs) ctx.store.put('file', String(r.file.id), r);
    return recs.map((r) => r.file);
  }
  const c = share.conversation;
  const m = postMessage(ctx, c, actor, {
    text: share.initialComment ?? '',
    subtype: 'file_share',
    ...(share.threadTs ? { thread_ts: share.threadTs } : {}),
    ...(share.blocks !== undefined ? { blocks: share.blocks } : {}),
    extra: { files: recs.map((r) => r.file), upload: true, display_as_bot: false },
  });
  const scope = c.is_private || c.is_mpim ? 'private' : 'public';
  const list = c.is_im ? 'ims' : c.is_private || c.is_mpim ? 'groups' : 'channels';
  const shared = recs.map((r) => {
    const shares = (r.file.shares as Record<string, Record<string, unknown[]>>) ?? {};
    const byScope = { ...(shares[scope] ?? {}) };
    byScope[c.id] = [
      ...(byScope[c.id] ?? []),
      { reply_users: [], reply_users_count: 0, reply_count: 0, ts: m.ts, channel_name: c.name ?? c.id, team_id: currentTeam(ctx).id, share_user_id: actor.id },
    ];
    const file: Record<string, unknown> = {
      ...r.file,
      shares: { ...shares, [scope]: byScope },
      [list]: [...new Set([...((r.file[list] as string[]) ?? []), c.id])],
      is_public: r.file.is_public === true || scope === 'public',
    };
    ctx.store.put('file', String(file.id), { ...r, file });
    return file;
  });
  // The message carries the files as shared.
  ctx.store.put('message', `${c.id}:${m.ts}`, { ...m, files: shared });
  for (const f of shared) {
    emitEvent(ctx, { type: 'file_shared', channel_id: c.id, file_id: f.id, user_id: actor.id, file: { id: f.id } }, { channel: c.id });
  }
  return shared;
}

export function deleteFile(ctx: TwinContext, actor: User, id: string | undefined): void {
  const rec = getFile(ctx, id);
  if (rec.file.user !== actor.id) throw new SlackError('cant_delete_file');
  ctx.store.put('file', id!, { ...rec, deleted: true, content_b64: null });
  emitEvent(ctx, {
    type: 'file_deleted',
    file_id: id,
    channel_ids: [...((rec.file.channels as string[]) ?? []), ...((rec.file.groups as string[]) ?? []), ...((rec.file.ims as string[]) ?? [])],
  });
}

export function sharePublicUrl(ctx: TwinContext, actor: User, id: string | undefined): Record<string, unknown> {
  const rec = getFile(ctx, id);
  if (rec.file.user !== actor.id) throw new SlackError('not_allowed');
  const file = { ...rec.file, public_url_shared: true };
  ctx.store.put('file', id!, { ...rec, file });
  emitEvent(ctx, { type: 'file_public', file_id: id, user_id: actor.id, file: { id } });
  return file;
}

/** Files a caller may see, newest first (files.list). */
export function listFiles(ctx: TwinContext, filter: { channel?: string; user?: string; types: string[] }): Record<string, unknown>[] {
  return ctx.store
    .list<FileRecord>('file')
    .filter((r) => !r.deleted && r.state === 'complete')
    .map((r) => r.file)
    .filter((f) => !filter.user || f.user === filter.user)
    .filter((f) => !filter.channel || [f.channels, f.groups, f.ims].some((l) => (l as string[]).includes(filter.channel!)))
    .filter((f) => filter.types.length === 0 || filter.types.includes('all') || filter.types.some((t) => typeMatches(t, f)))
    .sort((a, b) => Number(b.created) - Number(a.created));
}

function typeMatches(t: string, f: Record<string, unknown>): boolean {
  if (t === 'images') return String(f.mimetype).startsWith('image/');
  if (t === 'pdfs') return f.filetype === 'pdf';
  if (t === 'zips') return f.filetype === 'zip';
  if (t === 'snippets') return String(f.mode) === 'snippet';
  return false;
}
