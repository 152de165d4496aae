// Files (`file_`) and file links (`link_`): a multipart upload with a `purpose` that fixes which
// formats and sizes are accepted, how long the file lives and whether it can be downloaded or
// linked (Stripe's file upload guide), its bytes served back at `url` (the secret key) and at each
// link's `url` (no key: a link is a bearer capability). Files are what dispute evidence, identity
// documents and Connect verification name (model/disputes.ts checks them).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { base62, hmacStream } from '../../../twin-runtime/ids.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type Metadata, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';

/** What Stripe sniffs a file as (`type` on the File object). */
export type FileType = 'pdf' | 'jpg' | 'png' | 'gif' | 'svg' | 'csv' | 'json' | 'xlsx' | 'docx';

interface PurposeRule {
  types: FileType[];
  maxBytes: number;
  /** Seconds a file of this purpose lives; absent: never expires. */
  expiresAfter?: number;
  /** Whether the secret key may download it (`url` is null otherwise). */
  downloadable: boolean;
  /** Whether a file link may point at it. */
  linkable: boolean;
}

const KB = 1024;
const MB = 1024 * KB;
const DAY = 86_400;

/** The purposes of the API version the twin follows, with the file upload guide's rules. */
const PURPOSES: Record<string, PurposeRule> = {
  account_requirement: { types: ['pdf', 'jpg', 'png'], maxBytes: 16 * MB, downloadable: false, linkable: false },
  additional_verification: { types: ['pdf', 'jpg', 'png'], maxBytes: 16 * MB, downloadable: false, linkable: false },
  business_icon: { types: ['jpg', 'png', 'gif'], maxBytes: 512 * KB, downloadable: true, linkable: true },
  business_logo: { types: ['jpg', 'png', 'gif'], maxBytes: 512 * KB, downloadable: true, linkable: true },
  customer_signature: { types: ['jpg', 'png', 'svg'], maxBytes: 4 * MB, expiresAfter: 7 * DAY, downloadable: true, linkable: true },
  dispute_evidence: { types: ['pdf', 'jpg', 'png'], maxBytes: 5 * MB, expiresAfter: 273 * DAY, downloadable: true, linkable: true },
  identity_document: { types: ['pdf', 'jpg', 'png'], maxBytes: 16 * MB, downloadable: false, linkable: false },
  issuing_regulatory_reporting: { types: ['json'], maxBytes: 256 * KB, expiresAfter: 730 * DAY, downloadable: true, linkable: true },
  pci_document: { types: ['pdf'], maxBytes: 16 * MB, downloadable: true, linkable: true },
  tax_document_user_upload: { types: ['pdf', 'csv', 'jpg', 'png', 'xlsx', 'docx'], maxBytes: 16 * MB, downloadable: true, linkable: true },
  terminal_reader_splashscreen: { types: ['png', 'jpg', 'gif'], maxBytes: 16 * MB, downloadable: true, linkable: true },
};

const MIME: Record<FileType, string> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  csv: 'text/csv',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The file's format from its first bytes (as Stripe reads it), the name's extension for text and zip formats. */
export function sniffFileType(content: Buffer, filename: string): FileType | undefined {
  const head = content.subarray(0, 8);
  if (head.toString('latin1', 0, 5) === '%PDF-') return 'pdf';
  if (head[0] === 0x89 && head.toString('latin1', 1, 4) === 'PNG') return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  if (head.toString('latin1', 0, 4) === 'GIF8') return 'gif';
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  if (head.toString('latin1', 0, 4) === 'PK\u0003\u0004') return ext === 'xlsx' || ext === 'docx' ? ext : undefined;
  const text = content.subarray(0, 512).toString('utf8').trimStart();
  if (ext === 'svg' || /^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(text)) return /<svg[\s>]/.test(text) ? 'svg' : undefined;
  if (ext === 'json') return 'json';
  if (ext === 'csv') return 'csv';
  return undefined;
}

export interface FileRecord extends StripeObject {
  object: 'file';
  purpose: string;
  type: FileType;
  size: number;
  filename: string;
  created: number;
  expires_at: number | null;
  url: string | null;
  title: null;
}

export interface FileLink extends StripeObject {
  object: 'file_link';
  created: number;
  expired: boolean;
  expires_at: number | null;
  file: string;
  livemode: false;
  metadata: Metadata;
  url: string;
}

export interface FileUpload {
  purpose: string;
  filename: string;
  content: Buffer;
  /** `file_link_data[create]=true`: a link made with the file. */
  link?: { expiresAt?: number; metadata?: MetadataPatch };
}

/** The bytes of a file, kept beside its record (a retrieve or list never reads them). */
const CONTENT = 'file_content';

export function purposeRule(purpose: string): PurposeRule {
  const rule = PURPOSES[purpose];
  if (!rule) throw invalidRequest(`Invalid purpose: must be one of ${Object.keys(PURPOSES).join(', ')}`, 'purpose');
  return rule;
}

export function createFile(ctx: TwinContext, input: FileUpload): FileRecord & { links: unknown } {
  const rule = purposeRule(input.purpose);
  if (input.content.length === 0) throw invalidRequest('The file you uploaded is empty.', 'file');
  if (input.content.length > rule.maxBytes) {
    throw invalidRequest(`The file is ${input.content.length} bytes; files with purpose ${input.purpose} can be at most ${rule.maxBytes} bytes.`, 'file');
  }
  const type = sniffFileType(input.content, input.filename);
  if (!type || !rule.types.includes(type)) {
    throw invalidRequest(
      `Invalid file: files with purpose ${input.purpose} must be one of the following types: ${rule.types.map((t) => MIME[t]).join(', ')}.`,
      'file',
    );
  }
  if (input.link && !rule.linkable) {
    throw invalidRequest(`You cannot create a file link for a file with purpose ${input.purpose}.`, 'file_link_data[create]');
  }
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'file');
  const file: FileRecord = {
    id,
    object: 'file',
    created: now,
    expires_at: rule.expiresAfter === undefined ? null : now + rule.expiresAfter,
    filename: input.filename,
    purpose: input.purpose,
    size: input.content.length,
    title: null,
    type,
    url: rule.downloadable ? `${ctx.baseUrl}/v1/files/${id}/contents` : null,
  };
  save(ctx, 'file', file);
  ctx.store.put(CONTENT, id, { id, content_b64: input.content.toString('base64') });
  if (input.link) createFileLink(ctx, { file: id, expiresAt: input.link.expiresAt, metadata: input.link.metadata });
  return withLinks(ctx, file);
}

/** The File object as Stripe answers it: its first links, newest first. */
export function withLinks(ctx: TwinContext, file: FileRecord): FileRecord & { links: unknown } {
  const page = listFileLinks(ctx, { file: file.id }, { limit: 10 });
  return { ...file, links: { object: 'list', data: page.data, has_more: page.hasMore, url: `/v1/file_links?file=${file.id}` } };
}

export function getFile(ctx: TwinContext, id: string, param = 'file'): FileRecord {
  const file = find<FileRecord>(ctx, 'file', id);
  if (!file) throw resourceMissing('file upload', id, param);
  return file;
}

export function listFiles(ctx: TwinContext, purpose: string | undefined, window: ListWindow): ListPage<FileRecord> {
  return readPage<FileRecord>(ctx, 'file', purpose === undefined ? {} : { purpose }, window);
}

/** A file's bytes and their MIME type, for the secret-key download (`url`). */
export function fileContents(ctx: TwinContext, id: string): { content: Buffer; mimeType: string } {
  const file = getFile(ctx, id, 'id');
  if (!purposeRule(file.purpose).downloadable) {
    throw invalidRequest(`Files with purpose ${file.purpose} cannot be downloaded.`, 'id');
  }
  const stored = ctx.store.get<{ content_b64: string }>(CONTENT, id);
  if (!stored) throw resourceMissing('file upload', id, 'id');
  return { content: Buffer.from(stored.content_b64, 'base64'), mimeType: MIME[file.type] };
}

/** A file used where Stripe wants one of `purposes` (dispute evidence, identity documents). */
export function requireFileFor(ctx: TwinContext, id: string, purposes: string[], param: string): FileRecord {
  const file = getFile(ctx, id, param);
  if (!purposes.includes(file.purpose)) {
    throw invalidRequest(`The file ${id} has purpose ${file.purpose}; only files with purpose ${purposes.join(' or ')} can be used here.`, param);
  }
  return file;
}

// --- file links ---------------------------------------------------------------------------------

export interface FileLinkInput {
  file: string;
  expiresAt?: number;
  metadata?: MetadataPatch;
}

/**
 * The link's URL token: the link id and a signature with the twin's key, so the public route finds
 * and checks the link without a stored secret (Stripe's tokens likewise encode the link).
 */
function linkToken(ctx: TwinContext, linkId: string): string {
  const sig = base62(hmacStream(ctx.apiKey, `stripe-twin-file-link:${linkId}`), 24);
  return Buffer.from(`00|${linkId}|${sig}`).toString('base64url');
}

function checkExpiry(ctx: TwinContext, expiresAt: number | undefined): void {
  if (expiresAt !== undefined && expiresAt <= ctx.clock.nowSeconds()) {
    throw invalidRequest('The expires_at timestamp must be in the future.', 'expires_at');
  }
}

export function createFileLink(ctx: TwinContext, input: FileLinkInput): FileLink {
  const file = getFile(ctx, input.file, 'file');
  if (!purposeRule(file.purpose).linkable) {
    throw invalidRequest(`You cannot create a file link for a file with purpose ${file.purpose}.`, 'file');
  }
  checkExpiry(ctx, input.expiresAt);
  const id = newId(ctx, 'file_link');
  const link: FileLink = {
    id,
    object: 'file_link',
    created: ctx.clock.nowSeconds(),
    expired: false,
    expires_at: input.expiresAt ?? null,
    file: file.id,
    livemode: false,
    metadata: applyMetadata({}, input.metadata ?? null),
    url: `${ctx.baseUrl}/links/${linkToken(ctx, id)}`,
  };
  return save(ctx, 'file_link', link);
}

/** `expired` as of the twin's clock (a link past `expires_at` reads expired without a write). */
function current(ctx: TwinContext, link: FileLink): FileLink {
  const expired = link.expired || (link.expires_at !== null && link.expires_at <= ctx.clock.nowSeconds());
  return expired === link.expired ? link : { ...link, expired };
}

export function getFileLink(ctx: TwinContext, id: string): FileLink {
  const link = find<FileLink>(ctx, 'file_link', id);
  if (!link) throw resourceMissing('file link', id, 'link');
  return current(ctx, link);
}

export interface FileLinkUpdate {
  /** A future timestamp, `now` (expire at once) or null (never expire: the empty value). */
  expiresAt?: number | 'now' | null;
  metadata?: MetadataPatch;
}

export function updateFileLink(ctx: TwinContext, id: string, input: FileLinkUpdate): FileLink {
  const before = getFileLink(ctx, id);
  if (before.expired && input.expiresAt !== undefined) throw invalidRequest('This file link has expired and cannot be updated.', 'expires_at');
  const link = clone(before);
  if (input.expiresAt === 'now') {
    link.expires_at = ctx.clock.nowSeconds();
    link.expired = true;
  } else if (input.expiresAt !== undefined) {
    if (input.expiresAt !== null) checkExpiry(ctx, input.expiresAt);
    link.expires_at = input.expiresAt;
  }
  if (input.metadata !== undefined) link.metadata = applyMetadata(link.metadata, input.metadata);
  if (Object.keys(previousAttributes(before, link)).length > 0) save(ctx, 'file_link', link);
  return link;
}

export function listFileLinks(ctx: TwinContext, filter: { file?: string; expired?: boolean }, window: ListWindow): ListPage<FileLink> {
  const page = readPage<FileLink>(ctx, 'file_link', filter.file === undefined ? {} : { file: filter.file }, window, {
    keep: filter.expired === undefined ? undefined : (l) => current(ctx, l as FileLink).expired === filter.expired,
  });
  return { ...page, data: page.data.map((l) => current(ctx, l)) };
}

/** The bytes a link's URL serves, or undefined when the token is not a live link of this twin. */
export function linkedContents(ctx: TwinContext, token: string): { content: Buffer; mimeType: string; filename: string } | undefined {
  const [version, linkId, sig] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  if (version !== '00' || !linkId || !sig || linkToken(ctx, linkId) !== token) return undefined;
  const stored = find<FileLink>(ctx, 'file_link', linkId);
  if (!stored || current(ctx, stored).expired) return undefined;
  const file = find<FileRecord>(ctx, 'file', stored.file);
  const bytes = file && ctx.store.get<{ content_b64: string }>(CONTENT, file.id);
  if (!file || !bytes) return undefined;
  return { content: Buffer.from(bytes.content_b64, 'base64'), mimeType: MIME[file.type], filename: file.filename };
}
