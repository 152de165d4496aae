// `twins seeds list|suggestions|create|get|delete`: starting states described in words.

import { ok, type Seed, type TwinSlug } from '../client/index.js';
import { waitForSeed } from '../client/workflows.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';
import { waiting } from './waiting.js';

const rows = (seeds: Seed[]) =>
  seeds.length > 0
    ? table([
        ['ID', 'NAME', 'TWIN', 'STATUS', 'USABLE', 'CREATED'],
        ...seeds.map((s) => [s.id, s.name, s.twin, s.status, s.usable ? 'yes' : 'no', s.created_at]),
      ])
    : 'no seeds\n';
const one = (s: Seed) => rows([s]) + (s.failure ? `failure: ${s.failure}\n` : '') + `prompt: ${s.prompt}\n`;
const seedPath = (ctx: CommandContext) => ({ params: { path: { seed_id: ctx.args.SEED_ID! } } });

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/seeds', { params: { query: { twin: ctx.str('twin') } } })), rows);
};

export const suggestions: Handler = async (ctx) => {
  const client = await ctx.client();
  show(
    ctx,
    await ok(client.GET('/seeds/suggestions', { params: { query: { twin: ctx.str('twin') } } })),
    (list) => list.map((s) => `${s.twin}  ${s.name}\n  ${s.prompt}\n`).join('') || 'no suggestions\n',
  );
};

export const create: Handler = async (ctx) => {
  const client = await ctx.client();
  let seed = await ok(client.POST('/seeds', { body: { name: ctx.str('name')!, twin: ctx.str('twin') as TwinSlug, prompt: ctx.str('prompt')! } }));
  if (ctx.flag('wait')) seed = await waiting(ctx, `generating seed ${seed.name}`, (o) => waitForSeed(client, seed.id, o));
  show(ctx, seed, one);
};

export const get: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/seeds/{seed_id}', seedPath(ctx))), one);
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/seeds/{seed_id}', seedPath(ctx)));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.SEED_ID });
  else ctx.io.stdout(`deleted seed ${ctx.args.SEED_ID}\n`);
};
