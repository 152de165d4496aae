// The MCP tools, over the typed REST client: the same calls, the same authorization and the same
// sentences as the REST API (an API refusal becomes a tool error carrying its `detail`). Served over
// stdio by `twins mcp` and over streamable HTTP at /mcp by the control plane.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ok, type TwinSlug, type TwinsClient } from '../client/index.js';
import { advanceTwin, twinCredentials, waitForEnvironment, waitForSeed, type WaitOptions } from '../client/workflows.js';
import {
  catalogTwinSchema,
  diffSchema,
  ENVIRONMENT_FIDELITIES,
  environmentSchema,
  requestLogSchema,
  snapshotSchema,
  twinRecordSchema,
} from '../orchestration/schemas.js';
import { faultEffectSchema, faultMatchSchema, faultSchema } from '../orchestration/faults.js';
import { FIDELITY_LEVELS } from '../../twin-runtime/fidelity.js';
import { CLOCK_MODES } from '../../twin-runtime/clock.js';
import { packageVersion } from '../package-info.js';

/** What the server tells a client about itself, naming the twins the deployment runs (its catalog). */
export function mcpInstructions(twinNames: readonly string[]): string {
  return `Twins runs isolated, stateful copies ("twins") of third-party APIs (${twinNames.join(', ')}) that their official SDKs talk to unchanged.
The loop: create_environment with the twins you need (it waits until they are ready) → get_twin_credentials for a twin's URL, key and SDK snippet → point the SDK at it and make calls → list_request_logs to see every request the twin served → list_records / get_record / replace_record to read or set its state → advance_time to run lifecycle events (renewals, expiries) → create_test + run_test_attempt to check an outcome against the traffic → delete_environment when done.
To see what a run changed: snapshot_environment before it, diff_environment after it; fork_environment (or create_environment with snapshot_id) runs the same starting state again.
To see how code copes when the provider misbehaves: inject_fault (a seeded rate limit, 5xx, latency or dropped connection on matching requests), list_faults, delete_fault.`;
}

const id = (what: string) => z.string().min(1).describe(what);
const environmentId = id('environment id (from create_environment or list_environments)');
const twinId = id("twin id: the `id` of one of the environment's `twins`");
const record = z.object({ external_id: z.string(), resource: z.string(), body: z.record(z.string(), z.unknown()) });
const loose = z.object({ id: z.string() }).catchall(z.unknown());
const page = <T extends z.ZodType>(item: T) => ({ items: z.array(item), total: z.number(), page: z.number(), size: z.number(), pages: z.number() });
const paging = {
  page: z.number().int().min(1).optional().describe('page number, default 1'),
  size: z.number().int().min(1).max(100).optional().describe('items per page, 1..100, default 50'),
};
const waitSeconds = z.number().int().min(1).max(600).optional().describe('longest wait in seconds (default 50)');

type Structured = Record<string, unknown>;

/** Structured content plus its JSON as text, for clients that read only text. */
function result(structured: Structured): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }] };
}

/** Progress notifications while waiting, when the caller asked for them (a progress token). */
function progressOf(
  extra: { _meta?: { progressToken?: string | number }; sendNotification: (n: never) => Promise<void>; signal: AbortSignal },
  seconds?: number,
): WaitOptions {
  const token = extra._meta?.progressToken;
  let step = 0;
  return {
    timeoutMs: (seconds ?? 50) * 1000,
    signal: extra.signal,
    onProgress: (message) => {
      if (token === undefined) return;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } } as never).catch(() => {});
    },
  };
}

export function createMcpServer(client: () => TwinsClient | Promise<TwinsClient>, instructions: string): McpServer {
  const server = new McpServer({ name: 'twins', title: 'Twins', version: packageVersion() }, { instructions });
  const api = async () => client();

  server.registerTool(
    'list_catalog',
    {
      title: 'List twins',
      description: 'The twins (provider APIs) available for new environments, by slug.',
      inputSchema: {},
      outputSchema: { twins: z.array(catalogTwinSchema) },
      annotations: { readOnlyHint: true },
    },
    async () => result({ twins: await ok((await api()).GET('/twins/catalog')) }),
  );

  server.registerTool(
    'create_environment',
    {
      title: 'Create an environment',
      description:
        'Create an environment running the given twins (slugs from list_catalog) and wait until every twin is ready. Answers the environment with each twin id and URL.',
      inputSchema: {
        name: z.string().min(1).max(200).describe('a name for the environment'),
        twins: z.array(z.string().min(1)).optional().describe('twin slugs, e.g. ["stripe"] (at least one unless snapshot_id is given)'),
        snapshot_id: z.string().min(1).optional().describe('start from a snapshot (snapshot_environment): its twins, records and clock'),
        seed_ids: z.record(z.string(), z.string()).optional().describe('optional seed id per slug, e.g. {"stripe": "<seed id>"}'),
        ttl_seconds: z.number().int().min(1).optional().describe("lifetime in seconds (capped by the plan's)"),
        fidelity: z
          .enum(ENVIRONMENT_FIDELITIES)
          .optional()
          .describe("strict (default): what a twin does not simulate is refused in the provider's error shape; lenient: permissive answers instead"),
        clock: z
          .enum(CLOCK_MODES)
          .optional()
          .describe(
            'living (default): the clock runs with wall time, moved forward by advance_time; frozen: it moves only on advance_time (byte-identical runs)',
          ),
        wait_seconds: waitSeconds,
      },
      outputSchema: { environment: environmentSchema },
    },
    async (args, extra) => {
      const c = await api();
      const twins = (args.twins ?? []).map((twin) => ({ twin: twin as TwinSlug, ...(args.seed_ids?.[twin] ? { seed_id: args.seed_ids[twin] } : {}) }));
      const created = await ok(
        c.POST('/environments', {
          body: {
            name: args.name,
            twins,
            ...(args.snapshot_id ? { snapshot_id: args.snapshot_id } : {}),
            ...(args.ttl_seconds ? { ttl_seconds: args.ttl_seconds } : {}),
            ...(args.fidelity ? { fidelity: args.fidelity } : {}),
            ...(args.clock ? { clock: args.clock } : {}),
          },
        }),
      );
      const environment = await waitForEnvironment(c, created.id, progressOf(extra, args.wait_seconds)).catch((e: Error) => {
        throw new Error(`Environment ${created.id} was created but is not ready: ${e.message}`);
      });
      return result({ environment });
    },
  );

  server.registerTool(
    'get_environment',
    {
      title: 'Get an environment',
      description: 'An environment: status, clock, and each twin with its id, state and URL.',
      inputSchema: { environment_id: environmentId },
      outputSchema: { environment: environmentSchema },
      annotations: { readOnlyHint: true },
    },
    async ({ environment_id }) =>
      result({ environment: await ok((await api()).GET('/environments/{environment_id}', { params: { path: { environment_id } } })) }),
  );

  server.registerTool(
    'list_environments',
    {
      title: 'List environments',
      description: "The organization's environments, newest first (paged).",
      inputSchema: paging,
      outputSchema: page(environmentSchema),
      annotations: { readOnlyHint: true },
    },
    async (q) => result(await ok((await api()).GET('/environments', { params: { query: q } }))),
  );

  server.registerTool(
    'delete_environment',
    {
      title: 'Delete an environment',
      description: 'Stop every twin of the environment and delete it with its data.',
      inputSchema: { environment_id: environmentId },
      outputSchema: { deleted: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ environment_id }) => {
      await ok((await api()).DELETE('/environments/{environment_id}', { params: { path: { environment_id } } }));
      return result({ deleted: environment_id });
    },
  );

  server.registerTool(
    'reset_environment',
    {
      title: 'Reset an environment',
      description: 'Put every twin back to its seed (or empty) state and the clock back to its start. The request log is kept.',
      inputSchema: { environment_id: environmentId },
      outputSchema: { environment: environmentSchema },
      annotations: { destructiveHint: true },
    },
    async ({ environment_id }) =>
      result({ environment: await ok((await api()).POST('/environments/{environment_id}/reset', { params: { path: { environment_id } } })) }),
  );

  server.registerTool(
    'snapshot_environment',
    {
      title: 'Snapshot an environment',
      description:
        "Copy every twin's records and the clock at one instant (no request half applied). Start environments from it (create_environment with snapshot_id) or compare with it later (diff_environment).",
      inputSchema: { environment_id: environmentId, name: z.string().min(1).max(200).describe('a name for the snapshot') },
      outputSchema: { snapshot: snapshotSchema },
    },
    async ({ environment_id, name }) =>
      result({
        snapshot: await ok((await api()).POST('/environments/{environment_id}/snapshots', { params: { path: { environment_id } }, body: { name } })),
      }),
  );

  server.registerTool(
    'list_snapshots',
    {
      title: 'List snapshots',
      description: "An environment's snapshots, newest first (paged); forks of it appear too.",
      inputSchema: { environment_id: environmentId, ...paging },
      outputSchema: page(snapshotSchema),
      annotations: { readOnlyHint: true },
    },
    async ({ environment_id, ...query }) =>
      result(await ok((await api()).GET('/environments/{environment_id}/snapshots', { params: { path: { environment_id }, query } }))),
  );

  server.registerTool(
    'delete_snapshot',
    {
      title: 'Delete a snapshot',
      description: 'Delete a snapshot and its files (refused while an environment started from it is alive).',
      inputSchema: { snapshot_id: id('snapshot id (from snapshot_environment or list_snapshots)') },
      outputSchema: { deleted: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ snapshot_id }) => {
      await ok((await api()).DELETE('/snapshots/{snapshot_id}', { params: { path: { snapshot_id } } }));
      return result({ deleted: snapshot_id });
    },
  );

  server.registerTool(
    'fork_environment',
    {
      title: 'Fork an environment',
      description:
        'A new environment with the same records and clock as this one, diverging independently from here (a snapshot and an environment started from it); waits until it is ready.',
      inputSchema: {
        environment_id: environmentId,
        name: z.string().min(1).max(200).optional().describe('a name for the fork (default: the name with " (fork)")'),
        wait_seconds: waitSeconds,
      },
      outputSchema: { environment: environmentSchema },
    },
    async ({ environment_id, name, wait_seconds }, extra) => {
      const c = await api();
      const forked = await ok(c.POST('/environments/{environment_id}/fork', { params: { path: { environment_id } }, body: name ? { name } : {} }));
      const environment = await waitForEnvironment(c, forked.id, progressOf(extra, wait_seconds)).catch((e: Error) => {
        throw new Error(`Fork ${forked.id} was created but is not ready: ${e.message}`);
      });
      return result({ environment });
    },
  );

  server.registerTool(
    'diff_environment',
    {
      title: 'Diff an environment',
      description:
        'What changed since a snapshot: per twin, the records added, changed (with the field paths that differ) and removed. Give snapshot_id, or from and to to compare two snapshots.',
      inputSchema: {
        environment_id: environmentId,
        snapshot_id: z.string().min(1).optional().describe('compare the environment now with this snapshot'),
        from: z.string().min(1).optional().describe('compare two snapshots: the earlier one'),
        to: z.string().min(1).optional().describe('compare two snapshots: the later one'),
        limit: z.number().int().min(1).max(10_000).optional().describe('records listed per twin at most (default 1000)'),
      },
      outputSchema: diffSchema.shape,
      annotations: { readOnlyHint: true },
    },
    async ({ environment_id, ...query }) =>
      result(await ok((await api()).GET('/environments/{environment_id}/diff', { params: { path: { environment_id }, query } }))),
  );

  server.registerTool(
    'inject_fault',
    {
      title: 'Inject a fault',
      description:
        "Make one twin misbehave on matching requests, as its provider does under load: `rate_limit` (the provider's own 429/403 with Retry-After), `server_error` (its 5xx), `latency`, or `drop` (connection closed); for twins that deliver webhooks, the webhooks a matching request causes `late`, `twice` or `out_of_order`. " +
        "The probability is drawn from the environment's seeded random source, so the same run fails the same way; the request log names the fault on each answer it made.",
      inputSchema: {
        environment_id: environmentId,
        twin_id: twinId,
        match: faultMatchSchema.optional(),
        effect: faultEffectSchema,
        probability: z.number().gt(0).max(1).optional().describe('share of matching requests struck (default 1)'),
      },
      outputSchema: { fault: faultSchema },
    },
    async ({ environment_id, ...body }) =>
      result({ fault: await ok((await api()).POST('/environments/{environment_id}/faults', { params: { path: { environment_id } }, body })) }),
  );

  server.registerTool(
    'list_faults',
    {
      title: 'List faults',
      description: "The faults injected into an environment's twins (paged).",
      inputSchema: { environment_id: environmentId, ...paging },
      outputSchema: page(faultSchema),
      annotations: { readOnlyHint: true },
    },
    async ({ environment_id, ...query }) =>
      result(await ok((await api()).GET('/environments/{environment_id}/faults', { params: { path: { environment_id }, query } }))),
  );

  server.registerTool(
    'delete_fault',
    {
      title: 'Remove a fault',
      description: 'Remove a fault: requests after it are answered normally.',
      inputSchema: { environment_id: environmentId, fault_id: id('fault id (from inject_fault or list_faults)') },
      outputSchema: { deleted: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ environment_id, fault_id }) => {
      await ok((await api()).DELETE('/environments/{environment_id}/faults/{fault_id}', { params: { path: { environment_id, fault_id } } }));
      return result({ deleted: fault_id });
    },
  );

  server.registerTool(
    'get_twin_credentials',
    {
      title: 'Get twin credentials',
      description:
        "A ready twin's URL and API key, with a snippet pointing the provider's official SDK at it and the matching shell variables; `mcp_url` where the twin serves its provider's own MCP tools (connect with the API key as Bearer); `extras`: the credential's other halves (Slack's app token, signing secret and OAuth client id/secret for Socket Mode and OAuth apps, Stripe's publishable key, Jira's email…).",
      inputSchema: { twin_id: twinId },
      outputSchema: {
        twin_id: z.string(),
        twin_slug: z.string(),
        url: z.string(),
        api_key: z.string(),
        mcp_url: z.string().optional(),
        extras: z.record(z.string(), z.string()),
        sdk: z.object({ package: z.string(), language: z.string(), install: z.string(), code: z.string(), env: z.record(z.string(), z.string()) }),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ twin_id }) => result({ ...(await twinCredentials(await api(), twin_id)) }),
  );

  server.registerTool(
    'list_request_logs',
    {
      title: 'List request logs',
      description:
        "Every request the environment's twins served, newest first (paged), each with the fidelity level the twin answered at; narrow by twin, status code or fidelity.",
      inputSchema: {
        environment_id: environmentId,
        twin_id: twinId.optional(),
        status_code: z.number().int().min(100).max(599).optional().describe('only requests answered with this status'),
        fidelity: z
          .enum(FIDELITY_LEVELS)
          .optional()
          .describe(
            'only requests the twin answered at this level: modelled, inferred, stored or unsupported (e.g. unsupported: what the twin refused to simulate)',
          ),
        ...paging,
      },
      outputSchema: page(requestLogSchema),
      annotations: { readOnlyHint: true },
    },
    async ({ environment_id, ...query }) =>
      result(await ok((await api()).GET('/environments/{environment_id}/logs', { params: { path: { environment_id }, query } }))),
  );

  const recordPath = {
    environment_id: environmentId,
    twin_id: twinId,
    resource: z.string().min(1).describe('record kind, e.g. customer, subscription, repository, channel'),
  };
  const pathOf = (a: { environment_id: string; twin_id: string; resource: string }) => ({
    environment_id: a.environment_id,
    environment_twin_id: a.twin_id,
    resource: a.resource,
  });

  server.registerTool(
    'list_records',
    {
      title: 'List twin records',
      description: 'Every record of one kind a twin holds, as the provider would return it.',
      inputSchema: recordPath,
      outputSchema: { records: z.array(twinRecordSchema) },
      annotations: { readOnlyHint: true },
    },
    async (a) =>
      result({
        records: await ok((await api()).GET('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}', { params: { path: pathOf(a) } })),
      }),
  );

  const externalId = z.string().min(1).describe("the record's provider id, e.g. cus_…");
  server.registerTool(
    'get_record',
    {
      title: 'Get a twin record',
      description: 'One record of a twin by its provider id.',
      inputSchema: { ...recordPath, external_id: externalId },
      outputSchema: { record },
      annotations: { readOnlyHint: true },
    },
    async (a) =>
      result({
        record: await ok(
          (await api()).GET('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}/{external_id}', {
            params: { path: { ...pathOf(a), external_id: a.external_id } },
          }),
        ),
      }),
  );

  server.registerTool(
    'replace_record',
    {
      title: 'Replace a twin record',
      description: "Store `fields` as the whole record (created when absent); the twin's provider API answers from it at once.",
      inputSchema: {
        ...recordPath,
        external_id: externalId,
        fields: z.record(z.string(), z.unknown()).describe('the whole record, as the provider shapes it'),
      },
      outputSchema: { record },
      annotations: { destructiveHint: true },
    },
    async (a) =>
      result({
        record: await ok(
          (await api()).PUT('/environments/{environment_id}/twins/{environment_twin_id}/records/{resource}/{external_id}', {
            params: { path: { ...pathOf(a), external_id: a.external_id } },
            body: { fields: a.fields },
          }),
        ),
      }),
  );

  server.registerTool(
    'advance_time',
    {
      title: 'Advance time',
      description: "Move the clock of the twin's environment forward to `at` (default now) and run every lifecycle event due by then, in time order.",
      inputSchema: { twin_id: twinId, at: z.string().optional().describe('ISO 8601 instant, e.g. 2030-01-01T00:00:00Z') },
      outputSchema: { twin_id: z.string(), advanced_to: z.string().nullable() },
    },
    async ({ twin_id, at }) => {
      await advanceTwin(await api(), twin_id, at);
      return result({ twin_id, advanced_to: at ?? null });
    },
  );

  server.registerTool(
    'list_seed_suggestions',
    {
      title: 'List seed suggestions',
      description: 'Starting states each twin ships, as prompts create_seed takes.',
      inputSchema: { twin: z.string().optional().describe('only this twin slug') },
      outputSchema: { suggestions: z.array(z.object({ twin: z.string(), name: z.string(), prompt: z.string() })) },
      annotations: { readOnlyHint: true },
    },
    async ({ twin }) => result({ suggestions: await ok((await api()).GET('/seeds/suggestions', { params: { query: { twin } } })) }),
  );

  server.registerTool(
    'create_seed',
    {
      title: 'Create a seed',
      description: 'Describe a starting state in words; it is generated once (this waits for it) and create_environment takes its id in `seed_ids`.',
      inputSchema: {
        name: z.string().min(1).max(200),
        twin: z.string().min(1).describe('twin slug'),
        prompt: z.string().min(1).max(4000).describe('the data, in words'),
        wait_seconds: waitSeconds,
      },
      outputSchema: { seed: loose },
    },
    async (a, extra) => {
      const c = await api();
      const created = await ok(c.POST('/seeds', { body: { name: a.name, twin: a.twin as TwinSlug, prompt: a.prompt } }));
      return result({ seed: await waitForSeed(c, created.id, progressOf(extra, a.wait_seconds)) });
    },
  );

  server.registerTool(
    'create_test',
    {
      title: 'Create a test',
      description: 'A test from an outcome in words (compiled into request matchers) or from explicit assertions; run it with run_test_attempt.',
      inputSchema: {
        name: z.string().min(1).max(200),
        twins: z.array(z.string().min(1)).min(1).describe('twin slugs the test is about'),
        outcome: z.string().min(1).max(4000).optional().describe('the outcome in words, e.g. "created a customer named Ada and never deleted one"'),
        assertions: z.array(z.record(z.string(), z.unknown())).min(1).optional().describe('explicit assertions instead of an outcome'),
      },
      outputSchema: { test: loose },
    },
    async (a) => {
      if ((a.outcome === undefined) === (a.assertions === undefined)) throw new Error('Give exactly one of `outcome` or `assertions`.');
      const body = { name: a.name, twins: a.twins as TwinSlug[], ...(a.outcome !== undefined ? { outcome: a.outcome } : { assertions: a.assertions }) };
      return result({ test: await ok((await api()).POST('/tests', { body })) });
    },
  );

  server.registerTool(
    'run_test_attempt',
    {
      title: 'Run a test',
      description:
        "Evaluate a test over an environment's traffic (default: since the environment was created). `failures` says why each failing assertion failed.",
      inputSchema: {
        test_id: id('test id'),
        environment_id: environmentId,
        from: z.string().optional().describe('window start, ISO 8601'),
        to: z.string().optional().describe('window end, ISO 8601'),
      },
      outputSchema: {
        passed: z.boolean(),
        attempt: loose,
        failures: z.array(z.object({ says: z.string(), expected: z.string(), observed: z.number(), reason: z.string().nullable() })),
      },
    },
    async ({ test_id, environment_id, from, to }) => {
      const attempt = await ok(
        (await api()).POST('/tests/{test_id}/attempts', {
          params: { path: { test_id } },
          body: { environment_id, ...(from ? { from } : {}), ...(to ? { to } : {}) },
        }),
      );
      const failures = (attempt.results as { passed: boolean; says: string; expected: string; observed: number; reason: string | null }[])
        .filter((r) => !r.passed)
        .map(({ says, expected, observed, reason }) => ({ says, expected, observed, reason: reason ?? null }));
      return result({ passed: attempt.passed, attempt, failures });
    },
  );

  return server;
}
