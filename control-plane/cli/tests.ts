// `twins tests create|list|get|run|delete`: outcomes checked against an environment's traffic.
// `run` exits 1 when the attempt fails, after printing why each failing assertion failed.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ok, type Attempt, type Test, type TwinSlug } from '../client/index.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';

const testPath = (ctx: CommandContext) => ({ params: { path: { test_id: ctx.args.TEST_ID! } } });
const rows = (tests: Test[]) =>
  tests.length > 0
    ? table([['ID', 'NAME', 'TWINS', 'STATUS', 'ASSERTIONS'], ...tests.map((t) => [t.id, t.name, t.twins.join(','), t.status, t.assertions.length])])
    : 'no tests\n';
const one = (t: Test) =>
  rows([t]) +
  (t.outcome ? `outcome: ${t.outcome}\n` : '') +
  (t.failure ? `failure: ${t.failure}\n` : '') +
  t.assertions.map((a, i) => `  ${i + 1}. ${(a as { says?: string }).says ?? JSON.stringify(a)}\n`).join('');

/** One line per assertion; a failing one with its reason. */
export function renderAttempt(a: Attempt): string {
  const lines = a.results.map((r) => {
    const res = r as { passed?: boolean; says?: string; expected?: string; observed?: number; reason?: string | null };
    return `  ${res.passed ? 'pass' : 'FAIL'}  ${res.says ?? ''}${res.passed ? '' : `\n        expected ${res.expected}, observed ${res.observed}${res.reason ? `: ${res.reason}` : ''}`}`;
  });
  return `${a.passed ? 'passed' : 'FAILED'}: attempt ${a.id} over ${a.from} .. ${a.to}\n${lines.join('\n')}\n`;
}

export const create: Handler = async (ctx) => {
  const outcome = ctx.str('outcome');
  const file = ctx.str('assertions');
  if ((outcome === undefined) === (file === undefined)) throw ctx.usage('give exactly one of --outcome TEXT or --assertions FILE');
  let assertions: unknown[] | undefined;
  if (file !== undefined) {
    const text = file === '-' ? await ctx.io.readStdin() : await readFile(resolve(ctx.io.cwd, file), 'utf8');
    try {
      assertions = JSON.parse(text) as unknown[];
    } catch (e) {
      throw ctx.usage(`--assertions is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(assertions)) throw ctx.usage('--assertions must hold a JSON array');
  }
  const client = await ctx.client();
  const body = { name: ctx.str('name')!, twins: ctx.list('twin') as TwinSlug[], ...(outcome !== undefined ? { outcome } : { assertions }) };
  show(ctx, await ok(client.POST('/tests', { body })), one);
};

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  show(
    ctx,
    await ok(client.GET('/tests', { params: { query: { page: ctx.int('page'), size: ctx.int('size') } } })),
    (p) => rows(p.items) + `page ${p.page} of ${p.pages} (${p.total} tests)\n`,
  );
};

export const get: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/tests/{test_id}', testPath(ctx))), one);
};

export const run: Handler = async (ctx) => {
  const client = await ctx.client();
  const from = ctx.str('from');
  const to = ctx.str('to');
  const attempt = await ok(
    client.POST('/tests/{test_id}/attempts', { ...testPath(ctx), body: { environment_id: ctx.str('env')!, ...(from ? { from } : {}), ...(to ? { to } : {}) } }),
  );
  show(ctx, attempt, renderAttempt);
  return attempt.passed ? 0 : 1;
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/tests/{test_id}', testPath(ctx)));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.TEST_ID });
  else ctx.io.stdout(`deleted test ${ctx.args.TEST_ID}\n`);
};
