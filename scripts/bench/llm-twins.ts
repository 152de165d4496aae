// The model-provider twins (openai, anthropic) answering through their official SDKs, in one run,
// side by side: the first generation (it loads the tokenizer's BPE ranks), then p50/p95 of plain
// and streamed chat completions, Responses, embeddings and Claude messages against a models list
// (no tokenizer, no answer) as the baseline ratio. In-process twins on loopback ports.
//
//   node --import=tsx scripts/bench/llm-twins.ts [requests per kind, default 100]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { fmt, percentile } from './control-plane.js';

const N = Math.min(1000, Math.max(5, Number(process.argv[2] ?? 100)));
const dir = mkdtempSync(join(tmpdir(), 'bench-llm-'));

async function start(slug: string) {
  const server = new TwinServer(await loadTwin(slug), { dataFile: join(dir, `${slug}.sqlite`) });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url };
}

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const oa = await start('openai');
const an = await start('anthropic');
try {
  const openai = new OpenAI({ apiKey: oa.server.apiKey, baseURL: `${oa.url}/v1`, maxRetries: 0 });
  const claude = new Anthropic({ apiKey: an.server.apiKey, baseURL: an.url, maxRetries: 0 });
  let i = 0;
  const ask = () => ({ model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: `Summarise ticket ${i++} for the weekly report` }] });

  let t0 = performance.now();
  await openai.chat.completions.create(ask());
  const firstOpenAI = performance.now() - t0;
  t0 = performance.now();
  await claude.messages.create({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'warm up' }] });
  const firstClaude = performance.now() - t0;

  const kinds: Record<string, number[]> = {};
  kinds['models list (baseline)'] = await timed(() => openai.models.retrieve('gpt-4o-mini'));
  kinds['chat completion'] = await timed(() => openai.chat.completions.create(ask()));
  kinds['chat completion, streamed'] = await timed(async () => {
    for await (const _ of await openai.chat.completions.create({ ...ask(), stream: true })) void _;
  });
  kinds.responses = await timed(() => openai.responses.create({ model: 'gpt-4o-mini', input: `Explain item ${i++}` }));
  kinds['embeddings (3 × 1536)'] = await timed(() => openai.embeddings.create({ model: 'text-embedding-3-small', input: [`a ${i++}`, 'b', 'c'] }));
  kinds['claude message'] = await timed(() =>
    claude.messages.create({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: `Summarise ticket ${i++}` }] }),
  );
  kinds['claude message, streamed'] = await timed(() =>
    claude.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: `Summarise ticket ${i++}` }] }).finalMessage(),
  );

  const base = percentile(kinds['models list (baseline)']!, 50);
  console.log(
    JSON.stringify(
      {
        bench: 'model-provider twins through their SDKs',
        requests_per_kind: N,
        first_generation: { openai: fmt(firstOpenAI), anthropic: fmt(firstClaude) },
        kinds: Object.fromEntries(
          Object.entries(kinds).map(([k, v]) => [
            k,
            { p50: fmt(percentile(v, 50)), p95: fmt(percentile(v, 95)), ratio_to_baseline: Number((percentile(v, 50) / base).toFixed(2)) },
          ]),
        ),
      },
      null,
      2,
    ),
  );
} finally {
  await oa.server.close();
  await an.server.close();
  rmSync(dir, { recursive: true, force: true });
}
