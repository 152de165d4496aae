// Skills (beta): POST/GET /v1/skills, GET/DELETE /v1/skills/{skill_id}, and its versions (create,
// list, retrieve, delete, content as a zip).

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { readMultipart } from '../../../twin-runtime/multipart.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  createSkill,
  createSkillVersion,
  deleteSkill,
  deleteSkillVersion,
  listSkills,
  listSkillVersions,
  retrieveSkill,
  retrieveSkillVersion,
  skillVersionArchive,
  type UploadedFile,
} from '../model/skills.js';
import { invalid } from '../wire/errors.js';
import { pageQuery } from '../wire/params.js';

/** The upload's `files[]` (or `files`) and its form fields, any other field refused. */
async function upload(req: TwinRequest, fields: readonly string[]): Promise<{ files: UploadedFile[]; fields: Map<string, string> }> {
  const form = await readMultipart(req, invalid);
  const files = [...(form.fileLists.get('files[]') ?? []), ...(form.fileLists.get('files') ?? [])];
  const extra = [...form.fields.keys(), ...form.fileLists.keys()].find((k) => k !== 'files[]' && k !== 'files' && !fields.includes(k));
  if (extra !== undefined) throw invalid(`${extra}: Extra inputs are not permitted`);
  return { files: files.map((f) => ({ filename: f.filename, content: f.content })), fields: form.fields };
}

function cursor(req: TwinRequest): { limit: number; page?: string } {
  const { limit } = pageQuery(req);
  const page = ownValue(req.query, 'page');
  return { limit, ...(typeof page === 'string' && page !== '' ? { page } : {}) };
}

export const skillRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/skills',
    async handler(req, ctx) {
      const { files, fields } = await upload(req, ['display_name']);
      return { status: 200, body: createSkill(ctx, files, fields.get('display_name')) };
    },
  },
  {
    method: 'GET',
    path: '/v1/skills',
    handler(req, ctx) {
      const source = ownValue(req.query, 'source');
      if (typeof source === 'string' && source !== 'custom') {
        // An empty list would claim Anthropic publishes no skills: the twin says it does not carry them.
        throw new NotSimulated(`GET /v1/skills with source=${source}`, 'The twin holds only custom skills, none of Anthropic’s own.');
      }
      return { status: 200, body: listSkills(ctx, cursor(req)) };
    },
  },
  { method: 'GET', path: '/v1/skills/{skill_id}', handler: (req, ctx) => ({ status: 200, body: retrieveSkill(ctx, req.params.skill_id!) }) },
  { method: 'DELETE', path: '/v1/skills/{skill_id}', handler: (req, ctx) => ({ status: 200, body: deleteSkill(ctx, req.params.skill_id!) }) },
  {
    method: 'POST',
    path: '/v1/skills/{skill_id}/versions',
    async handler(req, ctx) {
      const { files } = await upload(req, []);
      return { status: 200, body: createSkillVersion(ctx, req.params.skill_id!, files) };
    },
  },
  {
    method: 'GET',
    path: '/v1/skills/{skill_id}/versions',
    handler: (req, ctx) => ({ status: 200, body: listSkillVersions(ctx, req.params.skill_id!, cursor(req)) }),
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
    async handler(req, ctx) {
      const { name, body } = await skillVersionArchive(ctx, req.params.skill_id!, req.params.version!);
      return { status: 200, headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${name}"` }, body };
    },
  },
];
