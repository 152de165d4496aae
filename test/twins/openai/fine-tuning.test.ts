// Fine-tuning jobs through the official `openai` SDK on a frozen clock moved by `advance`:
// validating → queued → running → succeeded, the fine-tuned model answering chat completions and
// listed among the models, checkpoints per epoch, events, a results file, pause and resume, cancel,
// a training file that fails validation, the refusals, and deleting the fine-tuned model.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const START = Date.parse('2026-05-01T00:00:00Z');
const twin = await startTwin('openai', { clockStart: new Date(START), clock: 'frozen' });
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });
const at = (seconds: number) => twin.advance(new Date(START + seconds * 1000));

const example = (i: number) =>
  JSON.stringify({
    messages: [
      { role: 'user', content: `Q${i}` },
      { role: 'assistant', content: `A${i}` },
    ],
  });
const jsonl = (n: number) => `${Array.from({ length: n }, (_, i) => example(i)).join('\n')}\n`;

t.test('a job runs on the clock and its model answers', async (t) => {
  const training = await client.files.create({ file: await toFile(Buffer.from(jsonl(20)), 'train.jsonl'), purpose: 'fine-tune' });
  const job = await client.fineTuning.jobs.create({
    model: 'gpt-4o-mini-2024-07-18',
    training_file: training.id,
    suffix: 'support',
    hyperparameters: { n_epochs: 2 },
  });
  t.match(job, { object: 'fine_tuning.job', status: 'validating_files', fine_tuned_model: null, model: 'gpt-4o-mini-2024-07-18', training_file: training.id });
  t.match(job.id, /^ftjob-/);
  await at(15);
  t.equal((await client.fineTuning.jobs.retrieve(job.id)).status, 'queued');
  await at(40);
  const running = await client.fineTuning.jobs.retrieve(job.id);
  t.equal(running.status, 'running');
  t.match(running.hyperparameters, { n_epochs: 2, batch_size: 1 }, "'auto' resolved once the file is validated");

  await client.fineTuning.jobs.pause(job.id);
  await at(400);
  t.equal((await client.fineTuning.jobs.retrieve(job.id)).status, 'paused', 'a paused job does not finish');
  await client.fineTuning.jobs.resume(job.id);
  await at(700);
  const done = await client.fineTuning.jobs.retrieve(job.id);
  t.equal(done.status, 'succeeded');
  t.match(done.fine_tuned_model, /^ft:gpt-4o-mini-2024-07-18:org-twin:support:/);
  t.equal(done.result_files.length, 1);
  t.match(await (await client.files.content(done.result_files[0]!)).text(), /^step,train_loss/);

  const checkpoints = await client.fineTuning.jobs.checkpoints.list(job.id);
  t.equal(checkpoints.data.length, 2, 'one checkpoint per epoch');
  const events = await client.fineTuning.jobs.listEvents(job.id, { limit: 100 });
  t.ok(events.data.some((e) => e.message.startsWith('New fine-tuned model created')));
  t.ok(
    events.data.every((e, i) => i === 0 || e.created_at <= events.data[i - 1]!.created_at),
    'newest first',
  );

  const completion = await client.chat.completions.create({ model: done.fine_tuned_model!, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(completion.model, done.fine_tuned_model, 'the fine-tuned model answers');
  t.ok((await client.models.list()).data.some((m) => m.id === done.fine_tuned_model && m.owned_by === 'org-twin'));
  t.same(await client.models.delete(done.fine_tuned_model!), { id: done.fine_tuned_model, object: 'model', deleted: true });
  const gone = await client.chat.completions.create({ model: done.fine_tuned_model!, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.ok(gone instanceof OpenAI.NotFoundError, 'a deleted model no longer answers');
  const base = await client.models.delete('gpt-4o-mini').catch((e: unknown) => e);
  t.ok(base instanceof OpenAI.PermissionDeniedError, 'a base model cannot be deleted');
});

t.test('validation failure, cancel and refusals', async (t) => {
  const small = await client.files.create({ file: await toFile(Buffer.from(jsonl(3)), 'small.jsonl'), purpose: 'fine-tune' });
  const failing = await client.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: small.id });
  await at(800);
  const failed = await client.fineTuning.jobs.retrieve(failing.id);
  t.equal(failed.status, 'failed');
  t.match(failed.error, { code: 'invalid_training_file', param: 'training_file', message: /at least 10 examples/ });

  const training = await client.files.create({ file: await toFile(Buffer.from(jsonl(12)), 'train.jsonl'), purpose: 'fine-tune' });
  const job = await client.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: training.id });
  t.equal((await client.fineTuning.jobs.cancel(job.id)).status, 'cancelled');
  const twice = await client.fineTuning.jobs.cancel(job.id).catch((e: unknown) => e);
  t.ok(twice instanceof OpenAI.BadRequestError);

  const notTunable = await client.fineTuning.jobs.create({ model: 'text-embedding-3-small', training_file: training.id }).catch((e: unknown) => e);
  t.ok(notTunable instanceof OpenAI.BadRequestError, 'an embedding model cannot be fine-tuned');
  const wrongPurpose = await client.files.create({ file: await toFile(Buffer.from(jsonl(12)), 'b.jsonl'), purpose: 'batch' });
  const purpose = await client.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: wrongPurpose.id }).catch((e: unknown) => e);
  t.ok(purpose instanceof OpenAI.BadRequestError, "a file without purpose 'fine-tune' is refused");
  const dpo = await client.fineTuning.jobs
    .create({ model: 'gpt-4o-mini-2024-07-18', training_file: training.id, method: { type: 'dpo', dpo: {} } })
    .catch((e: unknown) => e);
  t.equal((dpo as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'DPO is refused as not simulated');
  const listed = await client.fineTuning.jobs.list();
  t.ok(listed.data.length >= 3);
});
