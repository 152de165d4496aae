// `twins snapshots list|get|delete`: an environment's records and clock at one instant (taken with
// `twins env snapshot`, started from with `twins env create --snapshot`).

import { ok, type Snapshot } from '../client/index.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';

const rows = (snapshots: Snapshot[]) =>
  snapshots.length > 0
    ? table([
        ['ID', 'NAME', 'CLOCK', 'TWINS', 'BYTES', 'CREATED'],
        ...snapshots.map((s) => [s.id, s.name, s.clock, s.twins.map((t) => t.twin_slug).join(',') || '-', String(s.size_bytes), s.created_at]),
      ])
    : 'no snapshots\n';

export const renderSnapshot = (s: Snapshot) => rows([s]) + `of environment ${s.environment_id}, clock ${s.clock_mode}\n`;

const snapshotPath = (ctx: CommandContext) => ({ params: { path: { snapshot_id: ctx.args.SNAPSHOT_ID! } } });

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  const page = await ok(
    client.GET('/environments/{environment_id}/snapshots', {
      params: { path: { environment_id: ctx.args.ENV_ID! }, query: { page: ctx.int('page'), size: ctx.int('size') } },
    }),
  );
  show(ctx, page, (p) => rows(p.items) + `page ${p.page} of ${p.pages} (${p.total} snapshots)\n`);
};

export const get: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/snapshots/{snapshot_id}', snapshotPath(ctx))), renderSnapshot);
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/snapshots/{snapshot_id}', snapshotPath(ctx)));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.SNAPSHOT_ID });
  else ctx.io.stdout(`deleted snapshot ${ctx.args.SNAPSHOT_ID}\n`);
};
