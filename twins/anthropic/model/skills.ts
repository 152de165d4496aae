// Skills (beta): a skill is uploaded as files under one top-level directory holding a SKILL.md
// whose frontmatter gives its `name` (a kebab-case slug, fixed by the first upload) and
// `description`; each upload is a version, `latest_version_id` the newest. A version's content
// downloads as a zip of its files. The twin holds only custom skills (none of Anthropic's own).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { readSkillPackage, skillZip, type PackageFile, type StoredFile } from '../../../twin-runtime/llm/skill-package.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const SKILL = 'skill';

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
  versions: { version: SkillVersion; files: StoredFile[] }[];
}

export type UploadedFile = PackageFile;

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
  const upload = readSkillPackage(files, invalid);
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
  const upload = readSkillPackage(files, invalid);
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
  return { name: `${v.version.name}.zip`, body: await skillZip(v.version.name, v.files, new Date(v.version.created_at)) };
}
