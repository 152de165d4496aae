// Repository webhooks: create, get, update, delete, list, config, pings.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError } from '../wire/errors.js';
import { createHook, deleteHook, getHook, listHooks, ping, presentHook, updateHook } from '../model/webhooks.js';
import { jsonBody, numberParam, optBool, optStringArray, page, repoOf, routes } from '../wire/http.js';
import { requireAdmin } from './repositories.js';

export const webhookRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/hooks', (req, ctx) => page(req, ctx, listHooks(ctx, repoOf(req, ctx)).map(presentHook))),
  ...routes('POST', '/repos/{owner}/{repo}/hooks', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    const b = jsonBody(req);
    if (!b.config || typeof b.config !== 'object' || Array.isArray(b.config)) throw new GitHubError(422, 'Invalid request.\n\n"config" wasn\'t supplied.');
    const hook = createHook(ctx, repo, { config: b.config, events: optStringArray(b, 'events'), active: optBool(b, 'active') });
    ping(ctx, repo, hook);
    return { status: 201, body: presentHook(hook) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/hooks/{hook_id}', (req, ctx) => ({ body: presentHook(getHook(ctx, repoOf(req, ctx), numberParam(req, 'hook_id'))) })),
  ...routes('PATCH', '/repos/{owner}/{repo}/hooks/{hook_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    if (b.config !== undefined && (b.config === null || typeof b.config !== 'object' || Array.isArray(b.config))) {
      throw new GitHubError(422, `Invalid request.\n\nFor 'properties/config', ${JSON.stringify(b.config)} is not an object.`);
    }
    const patch = {
      config: b.config,
      events: optStringArray(b, 'events'),
      add_events: optStringArray(b, 'add_events'),
      remove_events: optStringArray(b, 'remove_events'),
      active: optBool(b, 'active'),
    };
    return { body: presentHook(updateHook(ctx, repo, numberParam(req, 'hook_id'), patch)) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/hooks/{hook_id}', (req, ctx) => {
    deleteHook(ctx, repoOf(req, ctx), numberParam(req, 'hook_id'));
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/hooks/{hook_id}/config', (req, ctx) => ({
    body: presentHook(getHook(ctx, repoOf(req, ctx), numberParam(req, 'hook_id'))).config,
  })),
  ...routes('PATCH', '/repos/{owner}/{repo}/hooks/{hook_id}/config', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentHook(updateHook(ctx, repo, numberParam(req, 'hook_id'), { config: jsonBody(req) })).config };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/hooks/{hook_id}/pings', (req, ctx) => {
    const repo = repoOf(req, ctx);
    ping(ctx, repo, getHook(ctx, repo, numberParam(req, 'hook_id')));
    return { status: 204 };
  }),
];
