// files.* methods, the upload URL (`POST /upload/v1/{file}/{token}`: raw bytes or a multipart
// form, as files.uploadV2 posts them), url_private downloads, and twin.files.upload (a person).

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import type { MethodTable } from '../wire/method.js';
import { pageSize } from '../wire/pagination.js';
import { completeUploads, deleteFile, getFile, listFiles, receiveUpload, reserveUpload, sharePublicUrl, type FileRecord } from '../model/files.js';
import { resolveConversation, resolveMemberConversation, isMember } from '../model/conversations.js';
import { getUser } from '../model/workspace.js';
import { destination } from './messages.js';

export const fileMethods: MethodTable = {
  'files.getUploadURLExternal': ({ ctx, args, actor }) => {
    const filename = args.required('filename');
    const length = args.int('length');
    if (length === undefined) throw invalidArguments('missing required field: length');
    return reserveUpload(ctx, actor, filename, length, args.string('alt_txt') ?? args.string('alt_text'));
  },

  'files.completeUploadExternal': ({ ctx, args, actor }) => {
    const files = args.json('files');
    if (!Array.isArray(files)) throw invalidArguments('files must be a JSON list of {id, title}');
    const items = files.map((f) => {
      if (!f || typeof f !== 'object' || typeof f.id !== 'string') throw invalidArguments('each file needs an id');
      return { id: f.id as string, title: typeof f.title === 'string' ? f.title : undefined };
    });
    const channelId = args.string('channel_id') ?? args.list('channels')[0];
    const share = channelId
      ? {
          conversation: destination(ctx, actor, channelId),
          initialComment: args.string('initial_comment'),
          threadTs: args.string('thread_ts'),
          blocks: args.json('blocks', 'invalid_blocks_format'),
        }
      : undefined;
    return { files: completeUploads(ctx, actor, items, share).map((f) => ({ id: f.id, title: f.title })) };
  },

  'files.info': ({ ctx, args }) => ({ file: getFile(ctx, args.string('file')).file, comments: [], response_metadata: { next_cursor: '' } }),

  'files.list': ({ ctx, args, actor }) => {
    const channel = args.string('channel');
    if (channel) resolveConversation(ctx, channel, actor.id);
    const all = listFiles(ctx, { channel, user: args.string('user'), types: args.list('types') });
    const count = pageSize(args.int('count'), 100, 1000);
    const page = Math.max(args.int('page') ?? 1, 1);
    const pages = Math.max(1, Math.ceil(all.length / count));
    return { files: all.slice((page - 1) * count, page * count), paging: { count, total: all.length, page, pages } };
  },

  'files.delete': ({ ctx, args, actor }) => {
    deleteFile(ctx, actor, args.string('file'));
    return {};
  },

  'files.sharedPublicURL': ({ ctx, args, actor }) => ({ file: sharePublicUrl(ctx, actor, args.string('file')) }),

  'twin.files.upload': ({ ctx, args }) => {
    const id = args.string('user');
    const u = id ? getUser(ctx, id) : undefined;
    if (!u || u.deleted || u.is_bot) throw new SlackError('user_not_found');
    const c = resolveMemberConversation(ctx, args.string('channel'), u.id);
    if (!isMember(ctx, c.id, u.id)) throw new SlackError('not_in_channel');
    const content = Buffer.from(args.string('content') ?? '', 'utf8');
    if (content.length === 0) throw new SlackError('no_file_data');
    const reserved = reserveUpload(ctx, u, args.required('filename'), content.length);
    receiveUpload(ctx, reserved.file_id, reserved.upload_url.split('/').pop()!, content);
    const [file] = completeUploads(ctx, u, [{ id: reserved.file_id, title: args.string('title') }], {
      conversation: c,
      initialComment: args.string('initial_comment'),
      threadTs: args.string('thread_ts'),
    });
    return { file };
  },
};

async function uploadBytes(req: TwinRequest): Promise<Buffer> {
  const ct = String(req.headers['content-type'] ?? '');
  if (ct.toLowerCase().startsWith('multipart/form-data')) {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(req.rawBody), { headers: { 'content-type': ct } }).formData();
    } catch {
      throw new SlackError('invalid_form_data');
    }
    for (const [, value] of form) {
      if (typeof value !== 'string') return Buffer.from(await value.arrayBuffer());
    }
    const text = form.get('body') ?? form.get('file');
    if (typeof text === 'string') return Buffer.from(text, 'utf8');
    throw new SlackError('no_file_data');
  }
  if (ct.toLowerCase().includes('x-www-form-urlencoded') && typeof req.body.body === 'string') return Buffer.from(req.body.body, 'utf8');
  return req.rawBody;
}

function text(status: number, body: string): TwinResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

async function upload(req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
  try {
    const bytes = await uploadBytes(req);
    if (bytes.length === 0) return text(400, 'no_file_data');
    return text(200, `OK - ${receiveUpload(ctx, req.params.file ?? '', req.params.token ?? '', bytes)}`);
  } catch (e) {
    if (e instanceof SlackError) return text(e.code === 'invalid_upload_url' ? 404 : 400, e.code);
    throw e;
  }
}

function download(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const id = (req.params.teamfile ?? '').split('-').pop();
  const rec = id ? ctx.store.get<FileRecord>('file', id) : undefined;
  if (!rec || rec.deleted || rec.content_b64 === null || rec.state !== 'complete') return text(404, 'Not Found');
  const headers: Record<string, string> = { 'content-type': String(rec.file.mimetype) };
  if (req.path.includes('/download/')) headers['content-disposition'] = `attachment; filename="${String(rec.file.name).replace(/["\\\r\n]/g, '_')}"`;
  return { status: 200, headers, body: Buffer.from(rec.content_b64, 'base64') };
}

export const fileRoutes: TwinRoute[] = [
  { method: 'POST', path: '/upload/v1/{file}/{token}', public: true, unmetered: true, handler: upload },
  { method: 'GET', path: '/files-pri/{teamfile}/{name}', unmetered: true, handler: download },
  { method: 'GET', path: '/files-pri/{teamfile}/download/{name}', unmetered: true, handler: download },
];
