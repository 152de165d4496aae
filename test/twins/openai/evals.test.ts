// Evals through the official `openai` SDK on a frozen clock: an eval with string_check and
// text_similarity graders, a run over inline items graded as they are, a completions run that
// samples the twin's own (scripted) chat model, output items, cancel and delete; the alpha grader
// run and validate; model-based graders refused as not simulated.

import t from 'tap';
import OpenAI from 'openai';
import { startTwin } from '../../helpers/twin.js';

const START = Date.parse('2026-06-01T00:00:00Z');
const twin = await startTwin('openai', { clockStart: new Date(START), clock: 'frozen' });
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

const criteria: OpenAI.Evals.EvalCreateParams['testing_criteria'] = [
  { type: 'string_check', name: 'exact', input: '{{sample.output_text}}', reference: '{{item.expected}}', operation: 'eq' },
  {
    type: 'text_similarity',
    name: 'close',
    input: '{{sample.output_text}}',
    reference: '{{item.expected}}',
    evaluation_metric: 'fuzzy_match',
    pass_threshold: 0.8,
  },
];

async function script(fields: unknown) {
  const res = await fetch(`${twin.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  if (res.status !== 200) throw new Error(await res.text());
}

t.test('runs grade items, sampled or given', async (t) => {
  const ev = await client.evals.create({
    name: 'capitals',
    data_source_config: {
      type: 'custom',
      item_schema: { type: 'object', properties: { country: { type: 'string' }, expected: { type: 'string' } } },
      include_sample_schema: true,
    },
    testing_criteria: criteria,
  });
  t.match(ev, { object: 'eval', name: 'capitals', data_source_config: { type: 'custom' } });
  t.same(
    ev.testing_criteria.map((c) => c.name),
    ['exact', 'close'],
  );

  const given = await client.evals.runs.create(ev.id, {
    data_source: {
      type: 'jsonl',
      source: {
        type: 'file_content',
        content: [
          { item: { country: 'Norway', expected: 'Oslo' }, sample: { output_text: 'Oslo' } },
          { item: { country: 'Peru', expected: 'Lima' }, sample: { output_text: 'Lime' } },
          { item: { country: 'Chad', expected: "N'Djamena" }, sample: { output_text: 'Paris' } },
        ],
      },
    },
  });
  t.equal(given.status, 'queued');
  await twin.advance(new Date(START + 31_000));
  const done = await client.evals.runs.retrieve(given.id, { eval_id: ev.id });
  t.equal(done.status, 'completed');
  t.same(done.result_counts, { total: 3, passed: 1, failed: 2, errored: 0 });
  t.same(done.per_testing_criteria_results, [
    { testing_criteria: 'exact', passed: 1, failed: 2 },
    { testing_criteria: 'close', passed: 1, failed: 2 },
  ]);
  const failed = await client.evals.runs.outputItems.list(given.id, { eval_id: ev.id, status: 'fail' });
  t.same(
    failed.data.map((o) => o.datasource_item_id),
    [1, 2],
  );

  await script({ match: { contains: 'capital of Sweden' }, response: { text: 'Stockholm' } });
  const sampled = await client.evals.runs.create(ev.id, {
    data_source: {
      type: 'completions',
      model: 'gpt-4o-mini',
      input_messages: { type: 'template', template: [{ role: 'user', content: 'What is the capital of {{item.country}}?' }] },
      source: { type: 'file_content', content: [{ item: { country: 'Sweden', expected: 'Stockholm' } }] },
    },
  });
  await twin.advance(new Date(START + 62_000));
  const result = await client.evals.runs.retrieve(sampled.id, { eval_id: ev.id });
  t.same(result.result_counts, { total: 1, passed: 1, failed: 0, errored: 0 }, 'the sampled (scripted) answer passes');
  t.equal(result.per_model_usage![0]!.invocation_count, 1);
  const items = await client.evals.runs.outputItems.list(sampled.id, { eval_id: ev.id });
  t.match(items.data[0]!.sample, { output: [{ role: 'assistant', content: 'Stockholm' }], model: 'gpt-4o-mini' });
  t.same(await client.evals.runs.outputItems.retrieve(items.data[0]!.id, { eval_id: ev.id, run_id: sampled.id }), items.data[0]);

  const queued = await client.evals.runs.create(ev.id, { data_source: { type: 'jsonl', source: { type: 'file_content', content: [{ item: {} }] } } });
  t.equal((await client.evals.runs.cancel(queued.id, { eval_id: ev.id })).status, 'canceled');
  t.match(await client.evals.runs.delete(queued.id, { eval_id: ev.id }), { deleted: true, run_id: queued.id });
  t.equal((await client.evals.update(ev.id, { name: 'capitals v2' })).name, 'capitals v2');
  t.ok((await client.evals.list()).data.some((e) => e.id === ev.id));
  t.match(await client.evals.delete(ev.id), { deleted: true, eval_id: ev.id });
});

t.test('graders and refusals', async (t) => {
  const run = await client.fineTuning.alpha.graders.run({
    grader: { type: 'string_check', name: 'has', input: '{{sample.output_text}}', reference: 'blue', operation: 'ilike' },
    model_sample: 'The sky is BLUE today',
  });
  t.equal(run.reward, 1);
  const validated = await client.fineTuning.alpha.graders.validate({
    grader: { type: 'text_similarity', name: 's', input: 'a', reference: 'b', evaluation_metric: 'fuzzy_match' },
  });
  t.match(validated.grader, { type: 'text_similarity' });
  const modelGrader = await client.evals
    .create({
      data_source_config: { type: 'custom', item_schema: { type: 'object' } },
      testing_criteria: [{ type: 'score_model', name: 'judge', model: 'gpt-4o-mini', input: [{ role: 'user', content: 'rate' }] }],
    })
    .catch((e: unknown) => e);
  t.equal((modelGrader as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'model graders are refused as not simulated');
  const badOp = await client.evals
    .create({
      data_source_config: { type: 'custom', item_schema: { type: 'object' } },
      testing_criteria: [{ type: 'string_check', name: 'x', input: 'a', reference: 'b', operation: 'glob' as 'eq' }],
    })
    .catch((e: unknown) => e);
  t.ok(badOp instanceof OpenAI.BadRequestError);
});
