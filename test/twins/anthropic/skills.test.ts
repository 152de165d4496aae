// Skills (beta) through @anthropic-ai/sdk's `beta.skills`: create from a directory with SKILL.md,
// versions (the name fixed by the first upload, `latest`), the content as a zip, listing, deletion
// and the refusals.

import t from 'tap';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { startTwin } from '../../helpers/twin.js';
import { unzip } from '../../helpers/zip.js';

const twin = await startTwin('anthropic');
t.teardown(() => twin.close());
const client = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nInstructions.\n`;

async function files(entries: Record<string, string>) {
  return Promise.all(Object.entries(entries).map(([path, text]) => toFile(Buffer.from(text), path)));
}

t.test('create, version, download, list, delete', async (t) => {
  const skill = await client.beta.skills.create({
    files: await files({ 'pdf-forms/SKILL.md': skillMd('pdf-forms', 'Fill PDF forms'), 'pdf-forms/fill.py': 'print("fill")\n' }),
  });
  t.match(skill, { type: 'skill', display_name: 'pdf-forms', source: { type: 'custom' } });
  t.match(skill.id, /^skill_01/);
  const first = await client.beta.skills.versions.retrieve('latest', { skill_id: skill.id });
  t.match(first, { type: 'skill_version', name: 'pdf-forms', description: 'Fill PDF forms', skill_id: skill.id, id: skill.latest_version_id });

  const second = await client.beta.skills.versions.create(skill.id, {
    files: await files({ 'pdf-forms/SKILL.md': skillMd('pdf-forms', 'Fill and sign PDF forms') }),
  });
  t.not(second.id, first.id);
  t.equal((await client.beta.skills.retrieve(skill.id)).latest_version_id, second.id, 'the newest upload is the latest version');
  const versions = await client.beta.skills.versions.list(skill.id);
  t.same(
    versions.data.map((v) => v.id),
    [second.id, first.id],
    'newest first',
  );

  const zip = Buffer.from(await (await client.beta.skills.versions.download(first.id, { skill_id: skill.id })).arrayBuffer());
  t.same(unzip(zip), { 'pdf-forms/SKILL.md': skillMd('pdf-forms', 'Fill PDF forms'), 'pdf-forms/fill.py': 'print("fill")\n' });

  const renamed = await client.beta.skills.versions
    .create(skill.id, { files: await files({ 'other/SKILL.md': skillMd('other', 'x') }) })
    .catch((e: unknown) => e);
  t.ok(renamed instanceof Anthropic.BadRequestError, "a version cannot change the skill's name");

  t.same(await client.beta.skills.versions.delete(second.id, { skill_id: skill.id }), { id: second.id, type: 'skill_version_deleted' });
  t.equal((await client.beta.skills.retrieve(skill.id)).latest_version_id, first.id);
  const last = await client.beta.skills.versions.delete(first.id, { skill_id: skill.id }).catch((e: unknown) => e);
  t.ok(last instanceof Anthropic.BadRequestError, 'the last version goes with the skill');

  const listed = await client.beta.skills.list();
  t.ok(listed.data.some((s) => s.id === skill.id));
  t.same(await client.beta.skills.delete(skill.id), { id: skill.id, type: 'skill_deleted' });
  t.ok((await client.beta.skills.retrieve(skill.id).catch((e: unknown) => e)) instanceof Anthropic.NotFoundError);
});

t.test('uploads without SKILL.md, across directories or with a bad name are refused', async (t) => {
  const cases: Record<string, string>[] = [
    { 'a/readme.md': 'no skill file' },
    { 'a/SKILL.md': skillMd('a', 'x'), 'b/x.py': '' },
    { 'a/SKILL.md': skillMd('Not A Slug', 'x') },
    { 'a/SKILL.md': '---\nname: a\n---\n' },
  ];
  for (const entries of cases) {
    const res = await client.beta.skills.create({ files: await files(entries) }).catch((e: unknown) => e);
    t.ok(res instanceof Anthropic.BadRequestError, Object.keys(entries).join(', '));
  }
  const anthropicOwn = await client.beta.skills.list({ source: 'anthropic' }).catch((e: unknown) => e);
  t.equal((anthropicOwn as InstanceType<typeof Anthropic.APIError>).status, 501, "Anthropic's own skills are not simulated, and said so");
  t.equal((anthropicOwn as InstanceType<typeof Anthropic.APIError>).headers?.get('twin-fidelity'), 'unsupported');
});
