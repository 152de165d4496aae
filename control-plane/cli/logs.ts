// `twins logs ENV_ID [--follow] [--twin] [--status] [--fidelity]`: the request log of an environment,
// newest first, with the fidelity level each answer was made at; --follow prints requests as they
// are served, oldest first, until Ctrl-C.

import { ok, type RequestLog } from '../client/index.js';
import { show, table } from './output.js';
import type { Handler } from './spec.js';

const FOLLOW_INTERVAL_MS = 1000;

export const logs: Handler = async (ctx) => {
  const client = await ctx.client();
  const environment_id = ctx.args.ENV_ID!;
  const env = await ok(client.GET('/environments/{environment_id}', { params: { path: { environment_id } } }));
  const slugs = new Map(env.twins.map((t) => [t.id, t.twin_slug]));
  const line = (r: RequestLog) => [
    r.occurred_at,
    slugs.get(r.environment_twin_id) ?? r.environment_twin_id,
    r.method,
    r.path + (r.query_string ? `?${r.query_string}` : ''),
    r.status_code ?? 'unanswered',
    r.fidelity ?? '-',
    `${r.duration_ms} ms`,
  ];
  const header = ['TIME', 'TWIN', 'METHOD', 'PATH', 'STATUS', 'FIDELITY', 'DURATION'];
  const fidelity = ctx.str('fidelity') as RequestLog['fidelity'] | undefined;
  const read = (page?: number, size?: number) =>
    ok(
      client.GET('/environments/{environment_id}/logs', {
        params: { path: { environment_id }, query: { page, size, twin_id: ctx.str('twin'), status_code: ctx.int('status'), fidelity: fidelity ?? undefined } },
      }),
    );

  if (!ctx.flag('follow')) {
    const page = await read(ctx.int('page'), ctx.int('size'));
    show(
      ctx,
      page,
      (p) => (p.items.length > 0 ? table([header, ...p.items.map(line)]) : 'no requests logged yet\n') + `page ${p.page} of ${p.pages} (${p.total} requests)\n`,
    );
    return;
  }
  // Following: one JSON object per line with --json, else aligned lines.
  // Only the newest page can hold unseen requests, so only its ids are remembered.
  let seen = new Set<string>();
  let first = true;
  let stop = false;
  void ctx.io.stopped.then(() => (stop = true));
  while (!stop) {
    const page = await read(1, 100);
    const fresh = page.items.filter((r) => !seen.has(r.id)).reverse();
    seen = new Set(page.items.map((r) => r.id));
    if (ctx.json) for (const r of fresh) ctx.io.stdout(JSON.stringify(r) + '\n');
    else if (fresh.length > 0) ctx.io.stdout(table(first ? [header, ...fresh.map(line)] : fresh.map(line)));
    if (fresh.length > 0) first = false;
    await Promise.race([new Promise((r) => setTimeout(r, FOLLOW_INTERVAL_MS)), ctx.io.stopped]);
  }
  return 0;
};
