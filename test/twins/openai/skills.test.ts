// Skills through the official `openai` SDK: create from a directory with SKILL.md, numbered
// versions and the default one, content as a zip, update, delete, refusals.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';
import { unzip } from '../../helpers/zip.js';

const twin = await startTwin('openai');
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\nSteps.\n`;
const files = (entries: Record<string, string>) => Promise.all(Object.entries(entries).map(([path, text]) => toFile(Buffer.from(text), path)));

t.test('versions, the default one, content', async (t) => {
  const skill = await client.skills.create({
    files: await files({ 'csv-report/SKILL.md': skillMd('csv-report', 'Summarise a CSV'), 'csv-report/run.py': 'x = 1\n' }),
  });
  t.match(skill, { object: 'skill', name: 'csv-report', description: 'Summarise a CSV', default_version: '1', latest_version: '1' });
  const v2 = await client.skills.versions.create(skill.id, {
    files: await files({ 'csv-report/SKILL.md': skillMd('csv-report', 'Summarise and chart a CSV') }),
  });
  t.match(v2, { object: 'skill.version', version: '2', skill_id: skill.id, description: 'Summarise and chart a CSV' });
  t.match(
    await client.skills.retrieve(skill.id),
    { default_version: '1', latest_version: '2', description: 'Summarise a CSV' },
    'a new version is not the default unless asked',
  );
  const zip = Buffer.from(await (await client.skills.content.retrieve(skill.id)).arrayBuffer());
  t.same(unzip(zip), { 'csv-report/SKILL.md': skillMd('csv-report', 'Summarise a CSV'), 'csv-report/run.py': 'x = 1\n' }, 'the content is the default version');
  const updated = await client.skills.update(skill.id, { default_version: '2' });
  t.match(updated, { default_version: '2', description: 'Summarise and chart a CSV' });
  const refused = await client.skills.versions.delete('2', { skill_id: skill.id }).catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.BadRequestError, 'the default version cannot be deleted');
  t.match(await client.skills.versions.delete('1', { skill_id: skill.id }), { object: 'skill.version.deleted', deleted: true, version: '1' });
  t.same(
    (await client.skills.versions.list(skill.id)).data.map((v) => v.version),
    ['2'],
  );
  t.ok((await client.skills.list()).data.some((s) => s.id === skill.id));
  t.match(await client.skills.delete(skill.id), { id: skill.id, object: 'skill.deleted', deleted: true });
  t.ok((await client.skills.retrieve(skill.id).catch((e: unknown) => e)) instanceof OpenAI.NotFoundError);
});

t.test('refusals', async (t) => {
  const noSkillMd = await client.skills.create({ files: await files({ 'x/readme.md': 'hi' }) }).catch((e: unknown) => e);
  t.ok(noSkillMd instanceof OpenAI.BadRequestError, 'a SKILL.md is required');
  const zipped = await client.skills.create({ files: await toFile(Buffer.from('PK'), 'skill.zip') }).catch((e: unknown) => e);
  t.equal((zipped as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'a zip upload is refused as not simulated');
});
