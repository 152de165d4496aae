// Repository webhooks: hook records, and the event deliveries they receive (ping, issues,
// issue_comment, pull_request, pull_request_review, push…), signed with the hook's secret.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { API, guid, nextId, now } from './identity.js';
import { notFound, validationFailed } from '../wire/errors.js';
import { type Json, getOrg, orgSummary, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { toTwinUrls } from '../wire/urls.js';
import { assignSafely } from '../../../twin-runtime/safe-input.js';
import { triggerActions } from './actions.js';

function hookKey(repo: Json, id: number): string {
  return childKey(repo, `hook:${id}`);
}

/** What the API shows: the stored hook with its secret masked. */
export function presentHook(hook: Json): Json {
  const config = { ...hook.config };
  if (config.secret) config.secret = '********';
  return { ...hook, config };
}

function normaliseConfig(input: Json, previous: Json = {}): Json {
  const config: Json = assignSafely({}, previous, input);
  if (typeof config.url !== 'string' || !/^https?:\/\//.test(config.url)) {
    throw validationFailed({ resource: 'Hook', code: 'custom', message: 'Config must contain url' } as never);
  }
  config.content_type = config.content_type === 'form' ? 'form' : 'json';
  config.insecure_ssl = String(config.insecure_ssl ?? '0');
  return config;
}

export function createHook(ctx: TwinContext, repo: Json, input: { config: Json; events?: string[]; active?: boolean; name?: string }): Json {
  const id = nextId(ctx, 'hook');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/hooks/${id}`;
  const hook = {
    type: 'Repository',
    id,
    name: 'web',
    active: input.active ?? true,
    events: input.events?.length ? [...new Set(input.events)] : ['push'],
    config: normaliseConfig(input.config),
    updated_at: at,
    created_at: at,
    url,
    test_url: `${url}/test`,
    ping_url: `${url}/pings`,
    deliveries_url: `${url}/deliveries`,
    last_response: { code: null, status: 'unused', message: null },
  };
  ctx.store.put('hook', hookKey(repo, id), hook);
  return hook;
}

export function getHook(ctx: TwinContext, repo: Json, id: number): Json {
  const h = ctx.store.get<Json>('hook', hookKey(repo, id));
  if (!h) throw notFound();
  return h;
}

export function listHooks(ctx: TwinContext, repo: Json): Json[] {
  const prefix = childKey(repo, 'hook:');
  return ctx.store.listByPrefix<Json>('hook', prefix).map((r) => r.body);
}

export function updateHook(ctx: TwinContext, repo: Json, id: number, patch: Json): Json {
  const hook = getHook(ctx, repo, id);
  if (patch.config !== undefined) {
    const merged = { ...patch.config };
    if (merged.secret === '********') delete merged.secret;
    hook.config = normaliseConfig(merged, hook.config);
  }
  if (Array.isArray(patch.events)) hook.events = [...new Set(patch.events as string[])];
  if (Array.isArray(patch.add_events)) hook.events = [...new Set([...hook.events, ...patch.add_events])];
  if (Array.isArray(patch.remove_events)) hook.events = hook.events.filter((e: string) => !patch.remove_events.includes(e));
  if (typeof patch.active === 'boolean') hook.active = patch.active;
  hook.updated_at = now(ctx);
  ctx.store.put('hook', hookKey(repo, id), hook);
  return hook;
}

export function deleteHook(ctx: TwinContext, repo: Json, id: number): void {
  getHook(ctx, repo, id);
  ctx.store.delete('hook', hookKey(repo, id));
}

/** Common payload parts: repository, organization (for org repos) and sender. */
function envelope(ctx: TwinContext, repo: Json, payload: Json): Json {
  const out: Json = { ...payload, repository: repo };
  if (repo.owner.type === 'Organization') {
    const org = getOrg(ctx, repo.owner.login);
    if (org) out.organization = orgSummary(org);
  }
  out.sender = simpleAccount(viewer(ctx));
  return out;
}

function deliver(ctx: TwinContext, repo: Json, hook: Json, event: string, payload: Json): void {
  const id = guid(ctx);
  const json = JSON.stringify(toTwinUrls(payload, ctx.baseUrl));
  const form = hook.config.content_type === 'form';
  ctx.deliveries.send({
    event,
    source_id: id,
    endpoint_id: String(hook.id),
    url: hook.config.url,
    payload: form ? `payload=${encodeURIComponent(json)}` : json,
    headers: {
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      'user-agent': 'GitHub-Hookshot/twin',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-github-hook-id': String(hook.id),
      'x-github-hook-installation-target-type': 'repository',
      'x-github-hook-installation-target-id': String(repo.id),
    },
    signing_secret: hook.config.secret ? String(hook.config.secret) : null,
  });
}

/** Start the Actions workflows listening for `event`, then send it to every active hook subscribed to it (or to `*`). */
export function emitEvent(ctx: TwinContext, repo: Json, event: string, payload: Json): void {
  triggerActions(ctx, repo, event, payload);
  const hooks = listHooks(ctx, repo).filter((h) => h.active && (h.events.includes(event) || h.events.includes('*')));
  if (!hooks.length) return;
  const body = envelope(ctx, repo, payload);
  for (const h of hooks) deliver(ctx, repo, h, event, body);
}

/** `POST /repos/{o}/{r}/hooks/{id}/pings` and the ping GitHub sends when a hook is created. */
export function ping(ctx: TwinContext, repo: Json, hook: Json): void {
  deliver(
    ctx,
    repo,
    hook,
    'ping',
    envelope(ctx, repo, {
      zen: 'Keep it logically awesome.',
      hook_id: hook.id,
      hook: presentHook(hook),
    }),
  );
}

/** X-Hub-Signature-256 (and the legacy SHA-1 header) over the exact bytes sent. */
export function signGitHubDelivery(d: DeliveryRecord, payload: string): Record<string, string> {
  if (!d.signing_secret) return {};
  return {
    'x-hub-signature-256': `sha256=${createHmac('sha256', d.signing_secret).update(payload).digest('hex')}`,
    'x-hub-signature': `sha1=${createHmac('sha1', d.signing_secret).update(payload).digest('hex')}`,
  };
}
