// The Vercel AI SDK (`ai` with `@ai-sdk/openai` and `@ai-sdk/anthropic`) over both LLM twins, as an
// agent author uses it: generateText, streamText, a multi-step tool loop that runs a real tool
// and answers from its result, and generateObject valid against its schema.

import t from 'tap';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { script, startLlmTwins, type LlmSlug } from './helpers.js';

const twins = await startLlmTwins();
t.teardown(() => Promise.all([twins.openai.close(), twins.anthropic.close()]));

const models: Record<LlmSlug, LanguageModel> = {
  openai: createOpenAI({ apiKey: twins.openai.apiKey, baseURL: `${twins.openai.url}/v1` })('gpt-4o-mini'),
  anthropic: createAnthropic({ apiKey: twins.anthropic.apiKey, baseURL: `${twins.anthropic.url}/v1` })('claude-haiku-4-5'),
};

for (const slug of ['openai', 'anthropic'] as const) {
  const twin = twins[slug];
  const model = models[slug];

  t.test(`${slug}: generateText answers with the scripted text`, async (t) => {
    await script(twin, slug, { match: { contains: 'capital of Norway' }, response: { text: 'Oslo is the capital of Norway.' } });
    const result = await generateText({ model, prompt: 'What is the capital of Norway?', maxRetries: 0 });
    t.equal(result.text, 'Oslo is the capital of Norway.');
    t.equal(result.finishReason, 'stop');
    t.ok((result.usage.inputTokens ?? 0) > 0, 'input tokens are reported');
    t.ok((result.usage.outputTokens ?? 0) > 0, 'output tokens are reported');
  });

  t.test(`${slug}: streamText streams the scripted chunks`, async (t) => {
    await script(twin, slug, {
      match: { contains: 'count to three' },
      response: { text: 'One, two, three.' },
      stream_chunks: ['One, ', 'two, ', 'three.'],
    });
    const result = streamText({ model, prompt: 'Please count to three', maxRetries: 0 });
    const parts: string[] = [];
    for await (const delta of result.textStream) parts.push(delta);
    t.same(parts, ['One, ', 'two, ', 'three.'], 'each scripted chunk arrives as one delta');
    t.equal(await result.text, 'One, two, three.');
    t.equal(await result.finishReason, 'stop');
  });

  t.test(`${slug}: a multi-step tool loop calls the tool and answers from its result`, async (t) => {
    await script(twin, slug, {
      match: { contains: 'weather in Bergen', tool: 'get_weather' },
      response: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Bergen' } }] },
    });
    await script(twin, slug, { match: { tool_result: 'get_weather', contains: 'rain' }, response: { text: 'Bergen: rain, 9°C.' } });
    const calls: string[] = [];
    const result = await generateText({
      model,
      prompt: 'What is the weather in Bergen?',
      maxRetries: 0,
      stopWhen: stepCountIs(4),
      tools: {
        get_weather: tool({
          description: 'Current weather for a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          }),
          execute: async ({ city }) => {
            calls.push(city);
            return { city, conditions: 'rain', celsius: 9 };
          },
        }),
      },
    });
    t.same(calls, ['Bergen'], 'the tool ran once with the scripted arguments');
    t.equal(result.steps.length, 2, 'a tool step, then the answer');
    t.equal(result.steps[0]!.finishReason, 'tool-calls');
    t.equal(result.text, 'Bergen: rain, 9°C.');
  });

  t.test(`${slug}: generateObject returns an object valid against the schema`, async (t) => {
    const schema = jsonSchema<{ name: string; age: number; tags: string[] }>({
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 150 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name', 'age', 'tags'],
      additionalProperties: false,
    });
    const { object } = await generateObject({ model, schema, prompt: 'Invent a person.', maxRetries: 0 });
    t.type(object.name, 'string');
    t.ok(Number.isInteger(object.age) && object.age >= 0 && object.age <= 150, `age ${object.age} is within the schema`);
    t.ok(Array.isArray(object.tags) && object.tags.every((x) => typeof x === 'string'));
  });
}
