// `twins records list|get|put|delete ENV_ID TWIN_ID RESOURCE [EXTERNAL_ID]`: a twin's state.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ok, type TwinRecord } from '../client/index.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';

const path = (ctx: CommandContext) => ({
  environment_id: ctx.args.ENV_ID!,
  environment_twin_id: ctx.args.TWIN_ID!,
  resource: ctx.args.RESOURCE!,
});
const onePath = (ctx: CommandContext) => ({ params: { path: { ...path(ctx), external_id: ctx.args.EXTERNAL_ID! } } });
const render = (r: TwinRecord) => `${r.resource} ${r.external_id}\n${JSON.stringify(r.body, null, 2)}\n`;

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  const records = await ok(client.GET('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}', { params: { path: path(ctx) } }));
  show(ctx, records, (rs) =>
    rs.length > 0 ? table([['EXTERNAL_ID', 'RESOURCE'], ...rs.map((r) => [r.external_id, r.resource])]) : `no ${ctx.args.RESOURCE} records\n`,
  );
};

export const get: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}/{external_id}', onePath(ctx))), render);
};

async function fieldsOf(ctx: CommandContext): Promise<Record<string, unknown>> {
  const inline = ctx.str('fields');
  const file = ctx.str('file');
  if ((inline === undefined) === (file === undefined)) throw ctx.usage('give the record as exactly one of --fields JSON or --file FILE');
  const text = inline ?? (file === '-' ? await ctx.io.readStdin() : await readFile(resolve(ctx.io.cwd, file!), 'utf8'));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw ctx.usage(`${inline !== undefined ? '--fields' : '--file'} is not valid JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw ctx.usage(`${inline !== undefined ? '--fields' : '--file'} must be a JSON object`);
  return value as Record<string, unknown>;
}

export const put: Handler = async (ctx) => {
  const fields = await fieldsOf(ctx);
  const client = await ctx.client();
  show(
    ctx,
    await ok(client.PUT('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}/{external_id}', { ...onePath(ctx), body: { fields } })),
    render,
  );
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}/{external_id}', onePath(ctx)));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.EXTERNAL_ID, resource: ctx.args.RESOURCE });
  else ctx.io.stdout(`deleted ${ctx.args.RESOURCE} ${ctx.args.EXTERNAL_ID}\n`);
};
