// `twins advance TWIN_ID [--at DATETIME]`: the environment clock forward, every due event run.

import { ok } from '../client/index.js';
import { printJson, progress } from './output.js';
import type { Handler } from './spec.js';

export const advance: Handler = async (ctx) => {
  const at = ctx.str('at');
  if (at !== undefined && Number.isNaN(Date.parse(at))) throw ctx.usage(`--at must be an ISO 8601 date-time (got '${at}')`);
  const client = await ctx.client();
  const spinner = progress(ctx.io, `advancing to ${at ?? 'now'}`);
  try {
    await ok(client.POST('/twins/{twin_id}/advance', { params: { path: { twin_id: ctx.args.TWIN_ID! } }, body: at ? { at } : {} }));
  } finally {
    spinner.done();
  }
  if (ctx.json) printJson(ctx.io, { twin_id: ctx.args.TWIN_ID, advanced_to: at ?? null });
  else ctx.io.stdout(`advanced the environment of twin ${ctx.args.TWIN_ID} to ${at ?? 'now'}\n`);
};
