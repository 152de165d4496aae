// Skills: a skill is uploaded as files under one top-level directory with a SKILL.md (its `name`
// and `description`, twin-runtime/llm/skill-package.ts); each upload is a numbered version, one of
// them the default (`default_version`, the content GET /v1/skills/{id}/content zips).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { readSkillPackage, skillZip, type PackageFile, type StoredFile } from '../../../twin-runtime/llm/skill-package.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';

export const SKILL = 'skill';

export interface SkillObject {
  id: string;
  object: 'skill';
  name: string;
  description: string;
  created_at: number;
  default_version: string;
  latest_version: string;
}

export interface SkillVersion {
  id: string;
  object: 'skill.version';
  skill_id: string;
  version: string;
  name: string;
  description: string;
  created_at: number;
}

interface StoredSkill {
  skill: SkillObject;
  versions: { version: SkillVersion; files: StoredFile[] }[];
  /** The last version number handed out (numbers are not reused after a delete). */
  counter: number;
}

const refuse = (message: string) => invalidRequest(message, 'files', null);

function stored(ctx: TwinContext, id: string): StoredSkill {
  const s = ctx.store.get<StoredSkill>(SKILL, id);
  if (!s) throw new OpenAIError(404, `Skill with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

function versionOf(s: StoredSkill, version: string) {
  const v = s.versions.find((x) => x.version.version === version);
  if (!v) throw new OpenAIError(404, `Skill version '${version}' not found.`, 'invalid_request_error', null, null);
  return v;
}

/** The skill as shown: its name and description are its default version's. */
function shown(s: StoredSkill): SkillObject {
  const d = versionOf(s, s.skill.default_version).version;
  return { ...s.skill, name: d.name, description: d.description };
}

function addVersion(ctx: TwinContext, s: StoredSkill, files: PackageFile[]): SkillVersion {
  const pkg = readSkillPackage(files, refuse);
  s.counter += 1;
  const version: SkillVersion = {
    id: ctx.ids.nextIn('skillver', 'skillver_', 32),
    object: 'skill.version',
    skill_id: s.skill.id,
    version: String(s.counter),
    name: pkg.name,
    description: pkg.description,
    created_at: ctx.clock.nowSeconds(),
  };
  s.versions.push({ version, files: pkg.files });
  s.skill = { ...s.skill, latest_version: version.version };
  return version;
}

export function createSkill(ctx: TwinContext, files: PackageFile[]): SkillObject {
  const id = ctx.ids.nextIn('skill', 'skill_', 32);
  const s: StoredSkill = {
    skill: { id, object: 'skill', name: '', description: '', created_at: ctx.clock.nowSeconds(), default_version: '1', latest_version: '1' },
    versions: [],
    counter: 0,
  };
  addVersion(ctx, s, files);
  ctx.store.put(SKILL, id, s);
  return shown(s);
}

export function listSkills(ctx: TwinContext): SkillObject[] {
  return ctx.store.list<StoredSkill>(SKILL).map(shown);
}

export function retrieveSkill(ctx: TwinContext, id: string): SkillObject {
  return shown(stored(ctx, id));
}

export function updateSkill(ctx: TwinContext, id: string, defaultVersion: string): SkillObject {
  const s = stored(ctx, id);
  versionOf(s, defaultVersion);
  s.skill = { ...s.skill, default_version: defaultVersion };
  ctx.store.put(SKILL, id, s);
  return shown(s);
}

export function deleteSkill(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(SKILL, id);
  return { id, object: 'skill.deleted' as const, deleted: true };
}

export async function skillContent(ctx: TwinContext, id: string, version?: string): Promise<Buffer> {
  const s = stored(ctx, id);
  const v = versionOf(s, version ?? s.skill.default_version);
  return skillZip(v.version.name, v.files, new Date(v.version.created_at * 1000));
}

export function createSkillVersion(ctx: TwinContext, id: string, files: PackageFile[], makeDefault: boolean): SkillVersion {
  const s = stored(ctx, id);
  const version = addVersion(ctx, s, files);
  if (makeDefault) s.skill = { ...s.skill, default_version: version.version };
  ctx.store.put(SKILL, id, s);
  return version;
}

export function listSkillVersions(ctx: TwinContext, id: string): SkillVersion[] {
  return stored(ctx, id).versions.map((v) => v.version);
}

export function retrieveSkillVersion(ctx: TwinContext, id: string, version: string): SkillVersion {
  return versionOf(stored(ctx, id), version).version;
}

/** The default version stays: make another the default first. */
export function deleteSkillVersion(ctx: TwinContext, id: string, version: string) {
  const s = stored(ctx, id);
  const v = versionOf(s, version);
  if (s.skill.default_version === version)
    throw invalidRequest(`Version ${version} is the skill's default version; set another default before deleting it.`, 'version', null);
  s.versions = s.versions.filter((x) => x !== v);
  s.skill = { ...s.skill, latest_version: s.versions[s.versions.length - 1]!.version.version };
  ctx.store.put(SKILL, id, s);
  return { id: v.version.id, object: 'skill.version.deleted' as const, deleted: true, version };
}
