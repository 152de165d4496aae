// Containers (the code interpreter's sandboxes): created `running`, `expired` once idle past their
// `expires_after` minutes (20 by default) after `last_active_at`; their files are uploaded or copied
// from the Files API to `/mnt/data/<name>`, listed, read back and deleted. The twin runs no code in
// them: a container holds exactly the files put there.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { fileContent, retrieveFile } from './files.js';

export const CONTAINER = 'container';

const MAX_FILES = 1_000;

export interface ContainerObject {
  id: string;
  object: 'container';
  created_at: number;
  name: string;
  status: 'running' | 'expired';
  expires_after: { anchor: 'last_active_at'; minutes: number };
  last_active_at: number;
  memory_limit: '1g' | '4g' | '16g' | '64g';
  network_policy?: unknown;
}

export interface ContainerFile {
  id: string;
  object: 'container.file';
  bytes: number;
  container_id: string;
  created_at: number;
  path: string;
  source: 'user';
}

interface StoredContainer {
  container: ContainerObject;
  files: { file: ContainerFile; content_base64: string }[];
}

/** The container as it stands now: idle past its expiry, it has expired. */
function current(ctx: TwinContext, s: StoredContainer): ContainerObject {
  const c = s.container;
  return c.status === 'running' && ctx.clock.nowSeconds() >= c.last_active_at + c.expires_after.minutes * 60 ? { ...c, status: 'expired' } : c;
}

function stored(ctx: TwinContext, id: string): StoredContainer {
  const s = ctx.store.get<StoredContainer>(CONTAINER, id);
  if (!s) throw new OpenAIError(404, `Container with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

/** A running container, its activity time moved to now. */
function running(ctx: TwinContext, id: string): StoredContainer {
  const s = stored(ctx, id);
  if (current(ctx, s).status === 'expired') throw invalidRequest(`Container is expired: ${id}`, null, null);
  s.container = { ...s.container, last_active_at: ctx.clock.nowSeconds() };
  return s;
}

function putFile(ctx: TwinContext, s: StoredContainer, filename: string, content: Buffer): ContainerFile {
  if (s.files.length >= MAX_FILES) throw invalidRequest(`A container holds at most ${MAX_FILES} files.`, 'file', null);
  const path = `/mnt/data/${filename.replace(/^.*[/\\]/, '')}`;
  const file: ContainerFile = {
    id: ctx.ids.nextIn('cfile', 'cfile_', 32),
    object: 'container.file',
    bytes: content.length,
    container_id: s.container.id,
    created_at: ctx.clock.nowSeconds(),
    path,
    source: 'user',
  };
  s.files = [...s.files.filter((f) => f.file.path !== path), { file, content_base64: content.toString('base64') }];
  return file;
}

export function createContainer(
  ctx: TwinContext,
  input: { name: string; fileIds: string[]; expiresAfterMinutes?: number; memoryLimit?: ContainerObject['memory_limit']; networkPolicy?: unknown },
): ContainerObject {
  const now = ctx.clock.nowSeconds();
  const s: StoredContainer = {
    container: {
      id: ctx.ids.nextIn('cntr', 'cntr_', 48),
      object: 'container',
      created_at: now,
      name: input.name,
      status: 'running',
      expires_after: { anchor: 'last_active_at', minutes: input.expiresAfterMinutes ?? 20 },
      last_active_at: now,
      memory_limit: input.memoryLimit ?? '1g',
      ...(input.networkPolicy !== undefined ? { network_policy: input.networkPolicy } : {}),
    },
    files: [],
  };
  for (const id of input.fileIds) putFile(ctx, s, retrieveFile(ctx, id).filename, fileContent(ctx, id));
  ctx.store.put(CONTAINER, s.container.id, s);
  return s.container;
}

export function listContainers(ctx: TwinContext, name?: string): ContainerObject[] {
  return ctx.store
    .list<StoredContainer>(CONTAINER)
    .map((s) => current(ctx, s))
    .filter((c) => name === undefined || c.name === name);
}

export function retrieveContainer(ctx: TwinContext, id: string): ContainerObject {
  return current(ctx, stored(ctx, id));
}

export function deleteContainer(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(CONTAINER, id);
  return { id, object: 'container.deleted' as const, deleted: true as const };
}

export function addContainerFile(ctx: TwinContext, id: string, input: { filename: string; content: Buffer } | { fileId: string }): ContainerFile {
  const s = running(ctx, id);
  const file =
    'fileId' in input
      ? putFile(ctx, s, retrieveFile(ctx, input.fileId).filename, fileContent(ctx, input.fileId))
      : putFile(ctx, s, input.filename, input.content);
  ctx.store.put(CONTAINER, id, s);
  return file;
}

function fileOf(s: StoredContainer, fileId: string) {
  const f = s.files.find((x) => x.file.id === fileId);
  if (!f) throw new OpenAIError(404, `File with id '${fileId}' not found in container '${s.container.id}'.`, 'invalid_request_error', null, null);
  return f;
}

export function listContainerFiles(ctx: TwinContext, id: string): ContainerFile[] {
  return stored(ctx, id).files.map((f) => f.file);
}

export function retrieveContainerFile(ctx: TwinContext, id: string, fileId: string): ContainerFile {
  return fileOf(stored(ctx, id), fileId).file;
}

export function containerFileContent(ctx: TwinContext, id: string, fileId: string): Buffer {
  return Buffer.from(fileOf(stored(ctx, id), fileId).content_base64, 'base64');
}

export function deleteContainerFile(ctx: TwinContext, id: string, fileId: string) {
  const s = stored(ctx, id);
  fileOf(s, fileId);
  s.files = s.files.filter((f) => f.file.id !== fileId);
  ctx.store.put(CONTAINER, id, s);
  return { id: fileId, object: 'container.file.deleted' as const, deleted: true as const };
}
