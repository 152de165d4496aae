// `twins env faults add|list|delete`: faults injected into an environment's twins (rate limits,
// 5xx, latency, dropped connections), struck with a probability drawn from the environment's
// seeded random source.

import { ok, type Fault } from '../client/index.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';

const describeMatch = (f: Fault) => [f.match.method ?? '*', f.match.path ?? '*', ...Object.entries(f.match.body ?? {}).map(([k, v]) => `${k}=${v}`)].join(' ');

const describeEffect = (f: Fault) => {
  const e = f.effect;
  if (e.type === 'latency') return `latency ${e.ms}ms${e.jitter_ms ? `+${e.jitter_ms}` : ''}`;
  if (e.type === 'rate_limit') return `rate_limit retry-after ${e.retry_after_seconds ?? 1}s`;
  return e.type;
};

const rows = (faults: Fault[]) =>
  faults.length > 0
    ? table([
        ['ID', 'TWIN', 'MATCH', 'EFFECT', 'PROBABILITY'],
        ...faults.map((f) => [f.id, f.twin_id, describeMatch(f), describeEffect(f), String(f.probability)]),
      ])
    : 'no faults\n';

const envPath = (ctx: CommandContext) => ({ environment_id: ctx.args.ENV_ID! });

/** `--body field=value` (repeatable) → the fields a request's body must carry. */
function bodyMatch(ctx: CommandContext): Record<string, string> | undefined {
  const pairs = ctx.list('body');
  if (pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq < 1) throw ctx.usage(`--body takes FIELD=VALUE, not '${p}'`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

export const add: Handler = async (ctx) => {
  const type = ctx.str('effect') as 'latency' | 'rate_limit' | 'server_error' | 'drop' | 'late' | 'twice' | 'out_of_order';
  const probabilityText = ctx.str('probability');
  const probability = probabilityText === undefined ? undefined : Number(probabilityText);
  if (probability !== undefined && !(probability > 0 && probability <= 1)) throw ctx.usage('--probability must be a number above 0 and at most 1');
  const ms = ctx.int('ms');
  if ((type === 'latency' || type === 'late') && ms === undefined) throw ctx.usage(`a ${type} fault needs --ms`);
  const effect =
    type === 'latency' || type === 'late'
      ? { type, ms: ms!, ...(ctx.int('jitter') !== undefined ? { jitter_ms: ctx.int('jitter')! } : {}) }
      : type === 'rate_limit'
        ? { type, ...(ctx.int('retry-after') !== undefined ? { retry_after_seconds: ctx.int('retry-after')! } : {}) }
        : { type };
  const body = bodyMatch(ctx);
  const client = await ctx.client();
  const created = await ok(
    client.POST('/environments/{environment_id}/faults', {
      params: { path: envPath(ctx) },
      body: {
        twin_id: ctx.str('twin')!,
        match: {
          ...(ctx.str('method') ? { method: ctx.str('method') } : {}),
          ...(ctx.str('path') ? { path: ctx.str('path') } : {}),
          ...(body ? { body } : {}),
        },
        effect,
        ...(probability !== undefined ? { probability } : {}),
      },
    }),
  );
  show(ctx, created, (f) => rows([f]));
};

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  const page = await ok(
    client.GET('/environments/{environment_id}/faults', { params: { path: envPath(ctx), query: { page: ctx.int('page'), size: ctx.int('size') } } }),
  );
  show(ctx, page, (p) => rows(p.items) + `page ${p.page} of ${p.pages} (${p.total} faults)\n`);
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/environments/{environment_id}/faults/{fault_id}', { params: { path: { ...envPath(ctx), fault_id: ctx.args.FAULT_ID! } } }));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.FAULT_ID });
  else ctx.io.stdout(`deleted fault ${ctx.args.FAULT_ID}\n`);
};
