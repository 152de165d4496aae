// The SendGrid twin through `@sendgrid/mail` / `@sendgrid/client`, in one run, side by side: p50
// and p95 of a plain send, a dynamic-template send (handlebars), a send with 100 personalizations
// (100 mailbox records), against `GET /v3/templates/{id}` (auth and routing only) as the baseline
// ratio; then one `advance` that answers the pending delivered events of every message sent.
// In-process twin on a loopback port. Then the cold start of `dist/twin-runtime/main.js --twin
// sendgrid` (spawn → `listening` line) beside `--twin jira` (a twin without a spec-driven layer),
// alternating, median of 5 (needs a build: `npx tsc -p tsconfig.json`).
//
//   node --import=tsx scripts/bench/sendgrid.ts [requests per kind, default 100]

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sgClient from '@sendgrid/client';
import sgMail from '@sendgrid/mail';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { fmt, percentile } from './control-plane.js';

const N = Math.min(1000, Math.max(5, Number(process.argv[2] ?? 100)));
const dir = mkdtempSync(join(tmpdir(), 'bench-sendgrid-'));
const server = new TwinServer(await loadTwin('sendgrid'), { dataFile: join(dir, 'sendgrid.sqlite'), clockStart: new Date('2026-03-02T09:00:00Z') });
const url = await server.listen(0, '127.0.0.1');

async function timed(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

try {
  sgClient.setApiKey(server.apiKey);
  sgClient.setDefaultRequest('baseUrl', url);
  sgMail.setClient(sgClient);
  const [, template] = await sgClient.request({ method: 'POST', url: '/v3/templates', body: { name: 'Bench', generation: 'dynamic' } });
  await sgClient.request({
    method: 'POST',
    url: `/v3/templates/${template.id}/versions`,
    body: { name: 'v1', subject: 'Hi {{name}}', html_content: '<p>Hello {{name}}</p>{{#each items}}<li>{{this}}</li>{{/each}}', active: 1 },
  });

  const kinds: Record<string, number[]> = {};
  kinds['GET template (baseline)'] = await timed(() => sgClient.request({ method: 'GET', url: `/v3/templates/${template.id}` }));
  kinds['plain send'] = await timed((i) => sgMail.send({ to: `r${i}@example.com`, from: 'a@example.com', subject: `Hello ${i}`, text: 'x', html: '<p>x</p>' }));
  kinds['dynamic template send'] = await timed((i) =>
    sgMail.send({
      to: `d${i}@example.com`,
      from: 'a@example.com',
      templateId: template.id,
      dynamicTemplateData: { name: `n${i}`, items: ['a', 'b', 'c'] },
    } as any),
  );
  kinds['send, 100 personalizations'] = await timed((i) =>
    sgClient.request({
      method: 'POST',
      url: '/v3/mail/send',
      body: {
        from: { email: 'a@example.com' },
        subject: 's',
        content: [{ type: 'text/plain', value: 'x' }],
        personalizations: Array.from({ length: 100 }, (_, j) => ({ to: [{ email: `p${i}-${j}@example.com` }] })),
      },
    }),
  );
  const base = percentile(kinds['GET template (baseline)']!, 50);
  const rows = Object.entries(kinds).map(([kind, xs]) => ({
    kind,
    p50: fmt(percentile(xs, 50)),
    p95: fmt(percentile(xs, 95)),
    'p50 / baseline': (percentile(xs, 50) / base).toFixed(2),
  }));
  const messages = server.ctx.store.count('message');
  const t0 = performance.now();
  const res = await fetch(`${url}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: '2026-03-02T10:00:00Z', wait_ms: 600_000 }),
  });
  const advanceMs = performance.now() - t0;
  const coldStart: Record<string, string> = {};
  const main = join(import.meta.dirname, '..', '..', 'dist', 'twin-runtime', 'main.js');
  if (existsSync(main)) {
    const times: Record<string, number[]> = { sendgrid: [], jira: [] };
    for (let round = 0; round < 5; round++) {
      for (const slug of ['sendgrid', 'jira']) {
        const t0 = performance.now();
        const child = spawn(process.execPath, [main, '--twin', slug, '--data', join(dir, `cold-${slug}-${round}.sqlite`), '--port', '0'], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        for await (const line of createInterface({ input: child.stdout! })) if (line.includes('"listening"')) break;
        times[slug]!.push(performance.now() - t0);
        child.kill();
      }
    }
    for (const [slug, xs] of Object.entries(times)) coldStart[slug] = fmt(percentile(xs, 50));
    coldStart['sendgrid / jira'] = (percentile(times.sendgrid!, 50) / percentile(times.jira!, 50)).toFixed(2);
  }
  console.log(
    JSON.stringify(
      {
        requests_per_kind: N,
        kinds: rows,
        advance: { status: res.status, messages_delivered: messages, ms: Math.round(advanceMs) },
        cold_start_p50: coldStart,
      },
      null,
      2,
    ),
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
