// `twins env create|list|get|wait|reset|delete|snapshot|fork|diff|export|replay` over the REST API.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ok, type Environment, type EnvironmentDiff, type Schemas } from '../client/index.js';
import { renderSnapshot } from './snapshots.js';
import { waitForEnvironment } from '../client/workflows.js';
import type { CommandContext } from './context.js';
import { printJson, show, table } from './output.js';
import type { Handler } from './spec.js';
import { waiting } from './waiting.js';

export function renderEnvironment(env: Environment): string {
  const head =
    `${env.name}  ${env.id}  ${env.status}  clock ${env.clock} (${env.clock_mode})  fidelity ${env.fidelity}` +
    `${env.expires_at ? `  expires ${env.expires_at}` : ''}\n`;
  const twins = env.twins.map((t) => [`  ${t.twin_slug}`, t.id, t.state, t.url ?? '-', t.failure ?? '']);
  return head + (twins.length > 0 ? table([['  TWIN', 'TWIN_ID', 'STATE', 'URL', ''], ...twins]) : '');
}

const envPath = (ctx: CommandContext) => ({ params: { path: { environment_id: ctx.args.ENV_ID! } } });

function wait(ctx: CommandContext, env: Environment): Promise<Environment> {
  return ctx.client().then((client) => waiting(ctx, `waiting for ${env.name} to be ready`, (o) => waitForEnvironment(client, env.id, o)));
}

export const create: Handler = async (ctx) => {
  const twins = ctx.list('twin').map((spec) => {
    const [twin, seed_id] = spec.split('@', 2);
    if (!twin) throw ctx.usage(`--twin '${spec}' names no twin (SLUG or SLUG@SEED_ID)`);
    // The slug is checked by the API (422 names the twins it knows).
    return (seed_id ? { twin, seed_id } : { twin }) as Schemas['EnvironmentTwinCreate'];
  });
  const scenario = ctx.str('scenario');
  const snapshot = ctx.str('snapshot');
  if (twins.length === 0 && !scenario && !snapshot) throw ctx.usage('give at least one --twin SLUG, a --scenario SCENARIO_ID or a --snapshot SNAPSHOT_ID');
  const client = await ctx.client();
  const fidelity = ctx.str('fidelity') as Schemas['EnvironmentCreate']['fidelity'];
  const clock = ctx.str('clock') as Schemas['EnvironmentCreate']['clock'];
  let env = await ok(
    client.POST('/environments', {
      body: {
        name: ctx.str('name')!,
        twins,
        ...(scenario ? { scenario_id: scenario } : {}),
        ...(snapshot ? { snapshot_id: snapshot } : {}),
        ...(ctx.int('ttl') ? { ttl_seconds: ctx.int('ttl') } : {}),
        ...(fidelity ? { fidelity } : {}),
        ...(clock ? { clock } : {}),
        ...(ctx.str('clock-start') ? { clock_start: ctx.str('clock-start') } : {}),
      },
    }),
  );
  if (ctx.flag('wait')) env = await wait(ctx, env);
  show(ctx, env, renderEnvironment);
};

export const list: Handler = async (ctx) => {
  const client = await ctx.client();
  const page = await ok(client.GET('/environments', { params: { query: { page: ctx.int('page'), size: ctx.int('size') } } }));
  show(
    ctx,
    page,
    (p) =>
      table([
        ['ID', 'NAME', 'STATUS', 'TWINS', 'CREATED'],
        ...p.items.map((e) => [e.id, e.name, e.status, e.twins.map((t) => t.twin_slug).join(',') || '-', e.created_at]),
      ]) + `page ${p.page} of ${p.pages} (${p.total} environments)\n`,
  );
};

export const get: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/environments/{environment_id}', envPath(ctx))), renderEnvironment);
};

export const wait_: Handler = async (ctx) => {
  const client = await ctx.client();
  const env = await ok(client.GET('/environments/{environment_id}', envPath(ctx)));
  show(ctx, await wait(ctx, env), renderEnvironment);
};
export { wait_ as wait };

export const reset: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.POST('/environments/{environment_id}/reset', envPath(ctx))), (e) => `reset; clock back to ${e.clock}\n` + renderEnvironment(e));
};

export const remove: Handler = async (ctx) => {
  const client = await ctx.client();
  await ok(client.DELETE('/environments/{environment_id}', envPath(ctx)));
  if (ctx.json) printJson(ctx.io, { deleted: ctx.args.ENV_ID });
  else ctx.io.stdout(`deleted environment ${ctx.args.ENV_ID}\n`);
};

export const snapshot: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.POST('/environments/{environment_id}/snapshots', { ...envPath(ctx), body: { name: ctx.str('name')! } })), renderSnapshot);
};

export const fork: Handler = async (ctx) => {
  const client = await ctx.client();
  const name = ctx.str('name');
  let env = await ok(client.POST('/environments/{environment_id}/fork', { ...envPath(ctx), body: name ? { name } : {} }));
  if (ctx.flag('wait')) env = await wait(ctx, env);
  show(ctx, env, renderEnvironment);
};

/** The diff as a reader scans it: per twin, one line per record, `+` added, `~` changed (its fields), `-` removed. */
export function renderDiff(diff: EnvironmentDiff): string {
  return diff.twins
    .map((t) => {
      const lines = [
        ...t.added.map((r) => `  + ${r.resource} ${r.external_id}`),
        ...t.changed.map((r) => `  ~ ${r.resource} ${r.external_id}  ${r.fields.join(', ')}`),
        ...t.removed.map((r) => `  - ${r.resource} ${r.external_id}`),
      ];
      const counts = `${t.added.length} added, ${t.changed.length} changed, ${t.removed.length} removed${t.truncated ? ' (more not listed: raise --limit)' : ''}`;
      return `twin ${t.twin_id}: ${lines.length === 0 ? 'no change' : counts}\n${lines.map((l) => l + '\n').join('')}`;
    })
    .join('');
}

export const diff: Handler = async (ctx) => {
  const client = await ctx.client();
  const snapshotId = ctx.str('snapshot');
  const from = ctx.str('from');
  const to = ctx.str('to');
  if (snapshotId ? from || to : !(from && to)) throw ctx.usage('give --snapshot SNAPSHOT_ID, or --from SNAPSHOT_ID and --to SNAPSHOT_ID');
  const query = { ...(snapshotId ? { snapshot_id: snapshotId } : { from, to }), ...(ctx.int('limit') ? { limit: ctx.int('limit') } : {}) };
  show(ctx, await ok(client.GET('/environments/{environment_id}/diff', { params: { path: { environment_id: ctx.args.ENV_ID! }, query } })), renderDiff);
};

/** The traffic as a replay file: JSON whatever --json says (it is the file). */
export const exportLogs: Handler = async (ctx) => {
  const client = await ctx.client();
  printJson(ctx.io, await ok(client.GET('/environments/{environment_id}/logs/export', envPath(ctx))));
};

export const replay: Handler = async (ctx) => {
  const file = ctx.str('file')!;
  const text = file === '-' ? await ctx.io.readStdin() : await readFile(resolve(ctx.io.cwd, file), 'utf8');
  let body: Schemas['ReplayFile'];
  try {
    body = JSON.parse(text) as Schemas['ReplayFile'];
  } catch (e) {
    throw ctx.usage(`--file is not valid JSON: ${(e as Error).message}`);
  }
  const client = await ctx.client();
  const out = await ok(client.POST('/environments/{environment_id}/replay', { ...envPath(ctx), body }));
  show(ctx, out, (r) =>
    r.first_difference
      ? `replayed ${r.replayed}: request ${r.first_difference.index} (${r.first_difference.request.method} ${r.first_difference.request.path}) answered ${r.first_difference.actual.status}, recorded ${r.first_difference.expected.status}${r.first_difference.actual.status === r.first_difference.expected.status ? ' (the body differs)' : ''}\n`
      : `replayed ${r.replayed}: no difference\n`,
  );
  return out.first_difference ? 1 : undefined;
};
