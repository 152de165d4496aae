// Skills (beta): a skill is uploaded as files under one top-level directory holding a SKILL.md
// whose frontmatter gives its `name` (a kebab-case slug, fixed by the first upload) and
// `description`; each upload is a version, `latest_version_id` the newest. A version's content
// downloads as a zip of its files. The twin holds only custom skills (none of Anthropic's own).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const SKILL = 'skill';

const loadArchiver = loadOnce(() => import('archiver'));
const MAX_FILES = 1_000;
const MAX_BYTES = 30 * 1024 ** 2;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface SkillObject {
  id: string;
  type: 'skill';
  display_name: string;
  latest_version_id: string;
  source: { type: 'custom' };
  created_at: string;
  updated_at: string;
}

export interface SkillVersion {
  id: string;
  type: 'skill_version';
  skill_id: string;
  name: string;
  description: string;
  created_at: string;
}

interface StoredSkill {
  skill: SkillObject;
  versions: { version: SkillVersion; files: { path: string; content_base64: string }[] }[];
}

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

/** `name:` and `description:` of a YAML frontmatter block (single-line values, quotes dropped). */
function frontmatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^(name|description):\s*(.*)$/.exec(line);
    if (kv) out[kv[1]!] = kv[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

/** The upload's files under their top-level directory, its SKILL.md's name and description. */
function readUpload(files: UploadedFile[]): { name: string; description: string; files: { path: string; content_base64: string }[] } {
  if (files.length === 0) throw invalid('files: at least one file is required');
  if (files.length > MAX_FILES) throw invalid(`files: at most ${MAX_FILES} files`);
  if (files.reduce((n, f) => n + f.content.length, 0) > MAX_BYTES) throw invalid(`files: the upload exceeds ${MAX_BYTES} bytes`);
  const tops = new Set(files.map((f) => (f.filename.includes('/') ? f.filename.split('/')[0]! : '')));
  if (tops.size !== 1) throw invalid('files: All files must be in the same top-level directory.');
  const top = [...tops][0]!;
  const skillMd = files.find((f) => f.filename === (top ? `${top}/SKILL.md` : 'SKILL.md'));
  if (!skillMd) throw invalid('files: SKILL.md file must be exactly in the top-level folder.');
  const meta = frontmatter(skillMd.content.toString('utf8'));
  const name = meta.name ?? top;
  if (!name || !SLUG.test(name) || name.length > 64) throw invalid('SKILL.md: `name` must be a kebab-case slug of at most 64 characters.');
  const description = meta.description ?? '';
  if (description === '' || description.length > 1024) throw invalid('SKILL.md: `description` is required (at most 1024 characters).');
  return {
    name,
    description,
    files: files.map((f) => ({ path: top ? f.filename.slice(top.length + 1) : f.filename, content_base64: f.content.toString('base64') })),
  };
}

function stored(ctx: TwinContext, id: string): StoredSkill {
  const s = ctx.store.get<StoredSkill>(SKILL, id);
  if (!s) throw new AnthropicError(404, `Skill not found: ${id}`, 'not_found_error');
  return s;
}

/** Version ids are the creation instant in microseconds, as Anthropic's are (unique within a skill). */
function versionId(ctx: TwinContext, s: StoredSkill | undefined): string {
  let id = ctx.clock.nowMs() * 1000;
  const taken = new Set(s?.versions.map((v) => v.version.id));
  while (taken.has(String(id))) id++;
  return String(id);
}

export function createSkill(ctx: TwinContext, files: UploadedFile[], displayName?: string): SkillObject {
  const upload = readUpload(files);
  if (displayName !== undefined && (displayName.length === 0 || displayName.length > 255 || /[\r\n]/.test(displayName))) {
    throw invalid('display_name: a single line of 1 to 255 characters');
  }
  const now = new Date(ctx.clock.nowMs()).toISOString();
  const id = ctx.ids.nextIn('skill', 'skill_01', 22);
  const version: SkillVersion = {
    id: versionId(ctx, undefined),
    type: 'skill_version',
    skill_id: id,
    name: upload.name,
    description: upload.description,
    created_at: now,
  };
  const skill: SkillObject = {
    id,
    type: 'skill',
    display_name: displayName ?? upload.name,
    latest_version_id: version.id,
    source: { type: 'custom' },
    created_at: now,
    updated_at: now,
  };
  ctx.store.put(SKILL, id, { skill, versions: [{ version, files: upload.files }] } satisfies StoredSkill);
  return skill;
}

export function listSkills(ctx: TwinContext, q: { limit: number; page?: string }) {
  return page(
    ctx.store
      .list<StoredSkill>(SKILL)
      .map((s) => s.skill)
      .reverse(),
    q,
  );
}

function page<T extends { id: string }>(all: T[], q: { limit: number; page?: string }) {
  let start = 0;
  if (q.page !== undefined) {
    const at = all.findIndex((x) => x.id === q.page);
    if (at === -1) throw invalid('page: invalid page token');
    start = at + 1;
  }
  const data = all.slice(start, start + q.limit);
  const hasMore = start + q.limit < all.length;
  return { data, has_more: hasMore, next_page: hasMore ? data[data.length - 1]!.id : null };
}

export function retrieveSkill(ctx: TwinContext, id: string): SkillObject {
  return stored(ctx, id).skill;
}

/** Deleting a skill deletes its versions. */
export function deleteSkill(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(SKILL, id);
  return { id, type: 'skill_deleted' as const };
}

export function createSkillVersion(ctx: TwinContext, id: string, files: UploadedFile[]): SkillVersion {
  const s = stored(ctx, id);
  const upload = readUpload(files);
  const name = s.versions[0]!.version.name;
  if (upload.name !== name) throw invalid(`SKILL.md: \`name\` must stay '${name}' (it was '${upload.name}').`);
  const now = new Date(ctx.clock.nowMs()).toISOString();
  const version: SkillVersion = { id: versionId(ctx, s), type: 'skill_version', skill_id: id, name, description: upload.description, created_at: now };
  s.versions.push({ version, files: upload.files });
  s.skill = { ...s.skill, latest_version_id: version.id, updated_at: now };
  ctx.store.put(SKILL, id, s);
  return version;
}

function versionOf(s: StoredSkill, version: string) {
  const id = version === 'latest' ? s.skill.latest_version_id : version;
  const v = s.versions.find((x) => x.version.id === id);
  if (!v) throw new AnthropicError(404, `Skill version not found: ${version}`, 'not_found_error');
  return v;
}

/** Newest first. */
export function listSkillVersions(ctx: TwinContext, id: string, q: { limit: number; page?: string }) {
  return page(
    stored(ctx, id)
      .versions.map((v) => v.version)
      .reverse(),
    q,
  );
}

export function retrieveSkillVersion(ctx: TwinContext, id: string, version: string): SkillVersion {
  return versionOf(stored(ctx, id), version).version;
}

/** A skill keeps at least one version: its last one goes with the skill itself. */
export function deleteSkillVersion(ctx: TwinContext, id: string, version: string) {
  const s = stored(ctx, id);
  const v = versionOf(s, version);
  if (s.versions.length === 1) throw invalid('A skill holds at least one version; delete the skill to remove its last version.');
  s.versions = s.versions.filter((x) => x !== v);
  s.skill = { ...s.skill, latest_version_id: s.versions[s.versions.length - 1]!.version.id };
  ctx.store.put(SKILL, id, s);
  return { id: v.version.id, type: 'skill_version_deleted' as const };
}

/** The version's files as a zip under the skill's name. */
export async function skillVersionArchive(ctx: TwinContext, id: string, version: string): Promise<{ name: string; body: Buffer }> {
  const v = versionOf(stored(ctx, id), version);
  const { ZipArchive } = await loadArchiver();
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const body = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.on('data', (c: Buffer) => chunks.push(c));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  const date = new Date(v.version.created_at);
  for (const f of v.files) archive.append(Buffer.from(f.content_base64, 'base64'), { name: `${v.version.name}/${f.path}`, date });
  void archive.finalize();
  return { name: `${v.version.name}.zip`, body: await body };
}
