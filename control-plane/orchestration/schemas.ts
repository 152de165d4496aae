// HTTP shapes of the environments, twins, catalog and sandboxes areas (docs/decisions.md §5, §6).

import { z } from 'zod';
import { isTwinSlug, TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { FIDELITY_LEVELS } from '../../twin-runtime/fidelity.js';
import { parseUuid, uuidString } from '../http/fields.js';
import { CLOCK_MODES } from '../../twin-runtime/clock.js';

/** An environment's fidelity (decisions §15). */
export const ENVIRONMENT_FIDELITIES = ['strict', 'lenient'] as const;

/** Every id in a path: any form Pydantic accepts (braced, urn:uuid:, upper case, no hyphens), normalised. */
export const idParam = uuidString();

/**
 * A twin's slug, checked against the twins this build ships (a 422 lists them, as an enum's does).
 * The document says `string`: the set is found at start (twin-runtime/registry.ts), so a new twin
 * changes no generated client.
 */
export const twinSlug = () =>
  z
    .string()
    .superRefine((value, ctx) => {
      if (!isTwinSlug(value)) ctx.addIssue({ code: 'invalid_value', values: [...TWIN_SLUGS], input: value });
    })
    .meta({ description: 'A twin slug, as `GET /twins/catalog` lists it.' });

export const twinSchema = z
  .object({
    id: z.string(),
    twin_slug: z.string(),
    twin_version: z.string(),
    seed_id: z.string().nullable(),
    desired_state: z.string(),
    state: z
      .string()
      .describe(
        '`pending`, `starting`, `ready`, `degraded` (running but not answering its health check in time: busy; restarted if it stays so), `stopping`, `stopped` or `failed` (`failure` says why).',
      ),
    url: z.string().nullable(),
    created_at: z.string(),
    ready_at: z.string().nullable(),
    failure: z.string().nullable(),
  })
  .meta({ id: 'EnvironmentTwin' });

export const environmentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    scenario_id: z.string().nullable(),
    sandbox_id: z.string(),
    twins: z.array(twinSchema),
    clock: z
      .string()
      .meta({ format: 'date-time' })
      .describe("The environment clock's instant now: a `living` clock runs with wall time between advances, a `frozen` one stands still."),
    clock_mode: z
      .enum(CLOCK_MODES)
      .describe('How the clock moves: `living` runs with wall time from creation plus every advance; `frozen` moves only on advance (byte-identical runs).'),
    fidelity: z
      .enum(ENVIRONMENT_FIDELITIES)
      .describe("`strict`: an operation a twin does not simulate is refused in the provider's error shape; `lenient`: permissive answers instead."),
    created_at: z.string(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'Environment' });

export const sandboxSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    status: z.string(),
    twins: z.array(twinSchema),
    created_at: z.string(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'Sandbox' });

export const requestLogSchema = z
  .object({
    id: z.string(),
    environment_id: z.string(),
    environment_twin_id: z.string(),
    method: z.string(),
    path: z.string(),
    query_string: z.string(),
    status_code: z
      .number()
      .int()
      .nullable()
      .describe(
        "The twin's answer's status; null when the request was sent to the twin and no answer was logged: still in flight, or cut off by a crash of the control plane (a state-changing request is logged before it reaches the twin).",
      ),
    duration_ms: z.number().int(),
    occurred_at: z.string(),
    fidelity: z
      .enum(FIDELITY_LEVELS)
      .nullable()
      .describe(
        "How the twin made the answer (its `Twin-Fidelity` header): `modelled`, `inferred`, `stored` or `unsupported`; null when it did not say (an answer of the gateway's own, or an entry older than the header).",
      ),
    fault: z
      .string()
      .nullable()
      .describe(
        "The injected fault that made, delayed or dropped the answer, as `<fault id> <effect type>` (the twin's `Twin-Fault` header; see `POST /environments/{id}/faults`); null when none did.",
      ),
  })
  .meta({ id: 'RequestLog' });

export const twinRecordSchema = z
  .object({
    external_id: z.string(),
    resource: z.string(),
    body: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'TwinRecord' });

export const catalogTwinSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    version: z.string(),
    sdk: z
      .object({
        snippets: z.array(
          z.object({
            language: z.string().describe('`JavaScript`'),
            package: z.string().describe("The provider's official SDK package."),
            code: z
              .string()
              .describe(
                'Code with `{{name}}` placeholders, each a string literal of the language: `{{url}}` (the twin URL without a trailing slash; `{{url:/suffix}}` with a suffix), `{{host}}`, `{{protocol}}`, `{{api_key}}` and the other fields of the twin credential; `{{port}}` a bare number.',
              ),
          }),
        ),
        env: z.record(z.string(), z.string()).describe('Shell variables the SDKs read, with the same placeholders (unquoted).'),
      })
      .nullable()
      .describe("How the provider's official SDKs are pointed at a twin of this kind; null when the twin names none."),
    mcp: z
      .object({
        server: z.string().describe("The provider's MCP server whose tools the twin serves (`github-mcp-server`)."),
        version: z.string().describe('The version of that server the pinned tool list comes from.'),
        source: z.string().describe('Where the pinned tool list comes from.'),
        tools: z.number().int().describe('Tools served (the whole published list).'),
        simulated: z.number().int().describe('Tools answered through the twin (the others answer an MCP tool error saying the twin does not simulate them).'),
      })
      .nullable()
      .describe("The provider's own MCP server the twin mirrors at `/mcp` on its URL (the credential's `mcp_url`); null when it has none."),
  })
  .meta({ id: 'CatalogTwin' });

export const coverageRowSchema = z
  .object({
    method: z.string(),
    path: z.string(),
    operation_id: z.string(),
    level: z
      .enum(FIDELITY_LEVELS)
      .describe(
        "`modelled` (hand-written behaviour), `inferred` (the generic engine applies what the spec makes safe), `stored` (plain record keeping) or `unsupported` (refused in the provider's own error envelope).",
      ),
    status: z.enum(FIDELITY_LEVELS).describe('The old name of `level`, kept for one release.'),
    reason: z.string().optional().describe('Why the operation is unsupported, or what the engine infers for it; for an MCP tool, the operations it performs.'),
  })
  .meta({ id: 'CoverageRow' });

export const credentialSchema = z
  .object({
    api_key: z.string().describe("What the provider SDK's constructor takes."),
    mcp_url: z
      .string()
      .optional()
      .describe(
        "Where the twin serves its provider's own MCP tools (streamable HTTP, `api_key` as Bearer), for twins that have them; each tool's provider requests are logged with a `Twin-Mcp-Tool` request header naming the tool.",
      ),
  })
  .catchall(z.string().describe("Another half of the provider's credential (Slack: `app_token`, `signing_secret`)."))
  .meta({ id: 'TwinCredential' });

/** A reference to another resource by id: any UUID form is normalised (an unknown id is then 404). */
const reference = () =>
  z
    .string()
    .min(1)
    .overwrite((v) => parseUuid(v) ?? v);

export const twinRequestBody = z
  .object({
    twin: twinSlug(),
    seed_id: reference().nullish(),
  })
  .meta({ id: 'EnvironmentTwinCreate' });

const ttlSeconds = z.number().int().gte(1).nullish();

export const createEnvironmentBody = z
  .object({
    name: z.string().min(1).max(200),
    twins: z.array(twinRequestBody).optional(),
    scenario_id: reference().nullish(),
    snapshot_id: reference()
      .nullish()
      .describe('Start from a snapshot: its twins (each from a clone of its file), its clock, and its `fidelity` and `clock` unless given here.'),
    ttl_seconds: ttlSeconds,
    fidelity: z
      .enum(ENVIRONMENT_FIDELITIES)
      .optional()
      .describe(
        "Default `strict`: what a twin does not simulate is refused in the provider's own error shape. `lenient`: permissive answers instead, for smoke tests that want any 2xx.",
      ),
    clock: z
      .enum(CLOCK_MODES)
      .optional()
      .describe(
        'Default `living`: the clock runs with wall time from creation, moved forward by advance. `frozen`: it moves only on advance, for byte-identical runs.',
      ),
    clock_start: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        "Where the clock starts (default: now, or the snapshot's or latest seed's instant; not before those, 409). A replay's target starts where the recorded environment did (its export's `clock_start`).",
      ),
  })
  .refine((b) => (b.twins?.length ?? 0) > 0 || !!b.scenario_id || !!b.snapshot_id, {
    message: 'Give the twins to run (at least one), a scenario_id or a snapshot_id',
    path: [],
  })
  .meta({ id: 'EnvironmentCreate' });

export const patchEnvironmentBody = z
  .object({
    name: z.string().min(1).max(200).optional(),
    ttl_seconds: ttlSeconds,
  })
  .meta({ id: 'EnvironmentUpdate' });

export const advanceBody = z.object({ at: z.iso.datetime({ offset: true, local: true }).optional() }).nullish();

export const advanceSchema = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    environment_id: z.string().meta({ format: 'uuid' }),
    status: z.enum(['running', 'succeeded', 'failed']),
    from: z.string().meta({ format: 'date-time' }),
    to: z.string().meta({ format: 'date-time' }),
    clock: z.string().meta({ format: 'date-time' }).describe('The environment clock now; every running twin is at the same instant.'),
    failure: z.string().nullable().describe('Why the advance stopped (a twin refused or failed); null otherwise.'),
    created_at: z.string().meta({ format: 'date-time' }),
    completed_at: z.string().meta({ format: 'date-time' }).nullable(),
  })
  .meta({ id: 'Advance', description: 'A long advance of an environment clock, followed until it ends.' });

export const putRecordBody = z.object({ fields: z.record(z.string(), z.unknown()) }).meta({ id: 'TwinRecordReplace' });

export const snapshotSchema = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    name: z.string(),
    environment_id: z.string().meta({ format: 'uuid' }),
    twins: z.array(
      z
        .object({
          twin_id: z.string().meta({ format: 'uuid' }).describe('The twin of the environment the file was copied from.'),
          twin_slug: z.string(),
          twin_version: z.string(),
          storage_version: z.number().int().describe('The twin storage version the file is written in; a twin at another one cannot start from it (409).'),
          size_bytes: z.number().int(),
        })
        .meta({ id: 'SnapshotTwin' }),
    ),
    clock: z
      .string()
      .meta({ format: 'date-time' })
      .describe("The environment clock's instant when the snapshot was taken; an environment started from it starts here."),
    clock_mode: z.enum(CLOCK_MODES).describe('How the clock moved in the environment; one started from the snapshot moves the same way unless told otherwise.'),
    size_bytes: z.number().int().describe('Bytes the files take on disk, counted toward the organization.'),
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Snapshot', description: "Every twin's records and the clock of an environment at one instant." });

export const createSnapshotBody = z.strictObject({ name: z.string().min(1).max(200) }).meta({ id: 'SnapshotCreate' });

export const forkBody = z
  .strictObject({ name: z.string().min(1).max(200).optional().describe('Default: the environment\'s name with " (fork)".') })
  .nullish()
  .meta({ id: 'EnvironmentFork' });

const recordRef = z.object({ resource: z.string(), external_id: z.string() });

export const diffSchema = z
  .object({
    twins: z.array(
      z
        .object({
          twin_id: z.string().describe("The environment's twin (or, for a twin on the earlier side only, the snapshot's)."),
          added: z.array(recordRef),
          changed: z.array(recordRef.extend({ fields: z.array(z.string()).describe('Paths of the fields that differ, dot-joined (`metadata.plan`).') })),
          removed: z.array(recordRef),
          truncated: z.boolean().describe('More records differ than listed (at most `limit` entries per twin).'),
        })
        .meta({ id: 'TwinDiff' }),
    ),
  })
  .meta({
    id: 'EnvironmentDiff',
    description:
      "The records added, changed and removed per twin. Records that log what happened rather than hold state (Stripe's events, webhook deliveries) are left out.",
  });
