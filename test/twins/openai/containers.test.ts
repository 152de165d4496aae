// Containers through the official `openai` SDK: create with files copied from the Files API,
// upload a file, list, read back, delete; expiry after the idle minutes on the clock.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const START = Date.parse('2026-04-01T00:00:00Z');
const twin = await startTwin('openai', { clockStart: new Date(START), clock: 'frozen' });
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

t.test('files in a container', async (t) => {
  const source = await client.files.create({ file: await toFile(Buffer.from('a,b\n1,2\n'), 'data.csv'), purpose: 'user_data' });
  const container = await client.containers.create({ name: 'analysis', file_ids: [source.id] });
  t.match(container, {
    object: 'container',
    name: 'analysis',
    status: 'running',
    expires_after: { anchor: 'last_active_at', minutes: 20 },
    memory_limit: '1g',
  });
  t.match(container.id, /^cntr_/);
  const uploaded = await client.containers.files.create(container.id, { file: await toFile(Buffer.from('print(1)\n'), 'run.py') });
  t.match(uploaded, { object: 'container.file', path: '/mnt/data/run.py', bytes: 9, container_id: container.id, source: 'user' });
  const listed = await client.containers.files.list(container.id);
  t.same(listed.data.map((f) => f.path).sort(), ['/mnt/data/data.csv', '/mnt/data/run.py']);
  const copied = listed.data.find((f) => f.path === '/mnt/data/data.csv')!;
  t.equal(await (await client.containers.files.content.retrieve(copied.id, { container_id: container.id })).text(), 'a,b\n1,2\n');
  t.same(await client.containers.files.retrieve(uploaded.id, { container_id: container.id }), uploaded);
  await client.containers.files.delete(uploaded.id, { container_id: container.id });
  t.equal((await client.containers.files.list(container.id)).data.length, 1);
  t.ok((await client.containers.list({ name: 'analysis' })).data.some((c) => c.id === container.id));
  await client.containers.delete(container.id);
  t.ok((await client.containers.retrieve(container.id).catch((e: unknown) => e)) instanceof OpenAI.NotFoundError);
});

t.test('an idle container expires; refusals', async (t) => {
  const container = await client.containers.create({ name: 'short', expires_after: { anchor: 'last_active_at', minutes: 5 } });
  await twin.advance(new Date(START + 6 * 60_000));
  t.equal((await client.containers.retrieve(container.id)).status, 'expired');
  const late = await client.containers.files.create(container.id, { file: await toFile(Buffer.from('x'), 'x.txt') }).catch((e: unknown) => e);
  t.ok(late instanceof OpenAI.BadRequestError, 'an expired container takes no files');
  const missingFile = await client.containers.create({ name: 'x', file_ids: ['file-missing'] }).catch((e: unknown) => e);
  t.ok(missingFile instanceof OpenAI.NotFoundError);
  const skills = await client.containers.create({ name: 'x', skills: [{ type: 'skill_reference', skill_id: 'skill_1' }] }).catch((e: unknown) => e);
  t.equal((skills as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'skills are refused as not simulated');
});
