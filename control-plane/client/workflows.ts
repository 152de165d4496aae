// What the CLI and the MCP server both do on top of single calls: wait for an environment, a seed
// or a long advance, and gather a twin's URL, key and SDK snippet. One implementation, over the typed client.

import { ok, type Environment, type Schemas, type Seed, type TwinsClient } from './index.js';
import { genericSdk, renderSdkSnippet, type SdkSnippet } from './sdk-snippets.js';

export interface WaitOptions {
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
  /** Between two reads (default 250 ms). */
  intervalMs?: number;
  /** Called with each read (progress lines). */
  onProgress?: (status: string) => void;
  /** Stop waiting early (a user's Ctrl-C). */
  signal?: AbortSignal;
}

/** Waiting ended without the awaited state: it failed, or took longer than allowed. */
export class WaitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitError';
  }
}

const ENVIRONMENT_DEAD = new Set(['failed', 'expired', 'stopping', 'stopped']);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new WaitError('Stopped waiting.'));
    const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(new WaitError('Stopped waiting.')));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function poll<T>(read: () => Promise<T>, verdict: (value: T) => 'done' | string | undefined, describe: (value: T) => string, o: WaitOptions): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  for (;;) {
    const value = await read();
    const v = verdict(value);
    if (v === 'done') return value;
    if (v !== undefined) throw new WaitError(v);
    o.onProgress?.(describe(value));
    if (Date.now() >= deadline) throw new WaitError(`Gave up after ${Math.round((o.timeoutMs ?? 120_000) / 1000)} s: ${describe(value)}.`);
    await sleep(Math.min(o.intervalMs ?? 250, Math.max(0, deadline - Date.now())), o.signal);
  }
}

export function describeEnvironment(env: Environment): string {
  const twins = env.twins.map((t) => `${t.twin_slug} ${t.state}`).join(', ');
  return `environment ${env.name} is ${env.status}${twins ? ` (${twins})` : ''}`;
}

/** Read the environment until it is ready; a failed twin or environment ends the wait with its reason. */
export function waitForEnvironment(client: TwinsClient, id: string, o: WaitOptions = {}): Promise<Environment> {
  return poll(
    () => ok(client.GET('/environments/{environment_id}', { params: { path: { environment_id: id } } })),
    (env) => {
      if (env.status === 'ready') return 'done';
      const failed = env.twins.find((t) => t.state === 'failed');
      if (failed) return `The ${failed.twin_slug} twin ${failed.id} failed: ${failed.failure ?? 'no reason given'}.`;
      if (ENVIRONMENT_DEAD.has(env.status)) return `Environment ${env.id} is ${env.status}; it will not become ready.`;
      return undefined;
    },
    describeEnvironment,
    o,
  );
}

/** Read the seed until it is generated (`ready`); `failed` ends the wait with its reason. */
export function waitForSeed(client: TwinsClient, id: string, o: WaitOptions = {}): Promise<Seed> {
  return poll(
    () => ok(client.GET('/seeds/{seed_id}', { params: { path: { seed_id: id } } })),
    (seed) => (seed.status === 'ready' ? 'done' : seed.status === 'failed' ? `Seed ${seed.id} failed: ${seed.failure ?? 'no reason given'}.` : undefined),
    (seed) => `seed ${seed.name} is ${seed.status}`,
    o,
  );
}

export interface TwinCredentials {
  twin_id: string;
  twin_slug: string;
  url: string;
  api_key: string;
  /** Where the twin serves its provider's MCP tools (the key as Bearer), when it has them. */
  mcp_url?: string;
  /**
   * The credential's other halves, as the REST endpoint answers them (Slack's `app_token`,
   * `signing_secret`, OAuth `client_id`/`client_secret`; Stripe's `publishable_key`; Jira's `email`…).
   */
  extras: Record<string, string>;
  sdk: SdkSnippet;
}

/** A ready twin's URL and key, with the snippet that points its provider's SDK at it. */
export async function twinCredentials(client: TwinsClient, twinId: string): Promise<TwinCredentials> {
  const path = { params: { path: { twin_id: twinId } } };
  const twin = await ok(client.GET('/twins/{twin_id}', path));
  const credential = await ok(client.POST('/twins/{twin_id}/credential', path));
  if (!twin.url) throw new WaitError(`Twin ${twinId} has no URL yet (it is ${twin.state}).`);
  const entry = await ok(client.GET('/twins/catalog/{twin_slug}', { params: { path: { twin_slug: twin.twin_slug } } }));
  const sdk = renderSdkSnippet(entry.sdk, twin.url, credential) ?? renderSdkSnippet(genericSdk(twin.twin_slug), twin.url, credential)!;
  return {
    twin_id: twin.id,
    twin_slug: twin.twin_slug,
    url: twin.url,
    api_key: credential.api_key,
    ...(credential.mcp_url ? { mcp_url: credential.mcp_url } : {}),
    extras: Object.fromEntries(Object.entries(credential).filter(([k]) => k !== 'api_key' && k !== 'mcp_url')),
    sdk,
  };
}

export type Advance = Schemas['Advance'];

/**
 * Advance a twin's environment to `at` (default now) and wait until every due event has run: a
 * short advance answers 200, a long one 202 with an Advance read until it ends. Resolves with the
 * environment clock when followed (undefined for a 200); a failed advance throws with its reason.
 */
export async function advanceTwin(client: TwinsClient, twinId: string, at: string | undefined, o: WaitOptions = {}): Promise<string | undefined> {
  const started = await client.POST('/twins/{twin_id}/advance', { params: { path: { twin_id: twinId } }, body: at ? { at } : {} });
  const answer = await ok(Promise.resolve(started));
  if (started.response.status !== 202) return undefined;
  const running = answer as Advance;
  const done = await poll(
    () =>
      ok(
        client.GET('/environments/{environment_id}/advances/{advance_id}', {
          params: { path: { environment_id: running.environment_id, advance_id: running.id } },
        }),
      ),
    (a) => (a.status === 'succeeded' ? 'done' : a.status === 'failed' ? `The advance to ${a.to} failed: ${a.failure ?? 'no reason given'}.` : undefined),
    (a) => `advance to ${a.to} is ${a.status} (clock ${a.clock})`,
    { timeoutMs: 600_000, ...o },
  );
  return done.clock;
}
