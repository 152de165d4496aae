// Skills: POST/GET /v1/skills, GET/POST(default_version)/DELETE /v1/skills/{id}, its content, and
// its versions (create, list, retrieve, delete, content).

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import type { PackageFile } from '../../../twin-runtime/llm/skill-package.js';
import {
  createSkill,
  createSkillVersion,
  deleteSkill,
  deleteSkillVersion,
  listSkills,
  listSkillVersions,
  retrieveSkill,
  retrieveSkillVersion,
  skillContent,
  updateSkill,
} from '../model/skills.js';
import { invalidRequest } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { cursorPage } from '../wire/pagination.js';
import { listQuery, operationBody, reqString } from '../wire/params.js';

/** The upload's files (`files[]` or `files`); a single zip is not unpacked by the twin. */
async function upload(req: TwinRequest, fields: readonly string[]): Promise<{ files: PackageFile[]; fields: Map<string, string> }> {
  const form = await readMultipart(req);
  const files = [...(form.fileLists.get('files[]') ?? []), ...(form.fileLists.get('files') ?? [])];
  const extra = [...form.fields.keys(), ...form.fileLists.keys()].find((k) => k !== 'files[]' && k !== 'files' && !fields.includes(k));
  if (extra !== undefined) throw invalidRequest(`Unknown parameter: '${extra}'.`, extra, 'unknown_parameter');
  if (files.length === 1 && files[0]!.filename.endsWith('.zip')) throw new NotSimulated(`${req.method} ${req.path} with a zip`, 'Upload the files themselves.');
  return { files: files.map((f) => ({ filename: f.filename, content: f.content })), fields: form.fields };
}

const zip = (body: Buffer) => ({ status: 200, headers: { 'content-type': 'application/zip' }, body });

export const skillRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/skills',
    async handler(req, ctx) {
      return { status: 200, body: createSkill(ctx, (await upload(req, [])).files) };
    },
  },
  { method: 'GET', path: '/v1/skills', handler: (req, ctx) => ({ status: 200, body: cursorPage(listSkills(ctx), listQuery(req, 100, 20, 'desc')) }) },
  { method: 'GET', path: '/v1/skills/{skill_id}', handler: (req, ctx) => ({ status: 200, body: retrieveSkill(ctx, req.params.skill_id!) }) },
  {
    method: 'POST',
    path: '/v1/skills/{skill_id}',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/skills/{skill_id}');
      return { status: 200, body: updateSkill(ctx, req.params.skill_id!, reqString(body, 'default_version')) };
    },
  },
  { method: 'DELETE', path: '/v1/skills/{skill_id}', handler: (req, ctx) => ({ status: 200, body: deleteSkill(ctx, req.params.skill_id!) }) },
  { method: 'GET', path: '/v1/skills/{skill_id}/content', handler: async (req, ctx) => zip(await skillContent(ctx, req.params.skill_id!)) },
  {
    method: 'POST',
    path: '/v1/skills/{skill_id}/versions',
    async handler(req, ctx) {
      const { files, fields } = await upload(req, ['default']);
      const makeDefault = fields.get('default');
      if (makeDefault !== undefined && makeDefault !== 'true' && makeDefault !== 'false')
        throw invalidRequest("Invalid 'default': expected a boolean.", 'default', 'invalid_type');
      return { status: 200, body: createSkillVersion(ctx, req.params.skill_id!, files, makeDefault === 'true') };
    },
  },
  {
    method: 'GET',
    path: '/v1/skills/{skill_id}/versions',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(listSkillVersions(ctx, req.params.skill_id!), listQuery(req, 100, 20, 'desc')) }),
  },
  {
    method: 'GET',
    path: '/v1/skills/{skill_id}/versions/{version}',
    handler: (req, ctx) => ({ status: 200, body: retrieveSkillVersion(ctx, req.params.skill_id!, req.params.version!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/skills/{skill_id}/versions/{version}',
    handler: (req, ctx) => ({ status: 200, body: deleteSkillVersion(ctx, req.params.skill_id!, req.params.version!) }),
  },
  {
    method: 'GET',
    path: '/v1/skills/{skill_id}/versions/{version}/content',
    handler: async (req, ctx) => zip(await skillContent(ctx, req.params.skill_id!, req.params.version!)),
  },
];
