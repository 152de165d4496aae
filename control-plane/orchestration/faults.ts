// Fault injection per twin (issue 38): the control plane's side. A fault lives in its twin's file
// (twin-runtime/faults.ts: matched and drawn there, on the request path the twin already walks;
// the gateway only logs the twin's Twin-Fault header), so it survives the twin's restarts, travels
// with snapshots and forks as the seeded source it draws from does, and a reset keeps it. The
// control plane reads and writes a twin's list through its admin API, one change at a time per twin.

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { badGateway, conflict, HttpError, notFound } from '../http/errors.js';
import { paginate, type Page, type PageQuery } from '../http/pagination.js';
import { FAULT_TYPES, MAX_FAULTS, MAX_LATENCY_MS, MAX_RETRY_AFTER_SECONDS, type Fault } from '../../twin-runtime/faults.js';
import type { EnvironmentStore, EnvironmentTwinRow } from '../store/environments.js';
import { ClockLocks } from './clock.js';
import type { EnvironmentService } from './environments.js';
import { TwinAdminError, type TwinAdminClient } from './twin-admin.js';
import { idParam } from './schemas.js';

const bodyValue = z.union([z.string().max(1000), z.number(), z.boolean()]);

export const faultEffectSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('latency'),
      ms: z.number().int().min(0).max(MAX_LATENCY_MS).describe('Added before the answer leaves.'),
      jitter_ms: z.number().int().min(0).max(MAX_LATENCY_MS).optional().describe('Up to this much more, drawn from the seeded source.'),
    }),
    z.strictObject({
      type: z.literal('rate_limit'),
      retry_after_seconds: z.number().int().min(0).max(MAX_RETRY_AFTER_SECONDS).optional().describe('The `Retry-After` the provider sends (default 1).'),
    }),
    z.strictObject({ type: z.literal('server_error') }),
    z.strictObject({ type: z.literal('drop') }),
    z.strictObject({
      type: z.literal('late'),
      ms: z.number().int().min(0).max(MAX_LATENCY_MS).describe('How much later the webhooks leave.'),
      jitter_ms: z.number().int().min(0).max(MAX_LATENCY_MS).optional().describe('Up to this much more, drawn from the seeded source.'),
    }),
    z.strictObject({ type: z.literal('twice') }),
    z.strictObject({ type: z.literal('out_of_order') }),
  ])
  .describe(
    `What the fault does (${FAULT_TYPES.join(', ')}): \`latency\` delays the real answer; \`rate_limit\` answers the provider's own rate limit (Stripe 429 \`rate_limit\`, GitHub 403 secondary limit, Slack 429 \`ratelimited\`, OpenAI 429 with \`x-ratelimit-*\`; a generic 429 elsewhere) with \`Retry-After\`; \`server_error\` the provider's 5xx; \`drop\` closes the connection without an answer (the route does not run for these three). For twins that deliver webhooks, the route runs and the webhooks it causes are shaped: \`late\` leaves them \`ms\` (plus seeded jitter) later, \`twice\` delivers each twice (the same event, as a redelivery), \`out_of_order\` holds them until the twin's next webhook has been attempted (at most 30 s).`,
  );

export const faultMatchSchema = z
  .strictObject({
    method: z
      .string()
      .regex(/^[A-Za-z]{1,16}$/)
      .optional()
      .describe('HTTP method (any when absent).'),
    path: z
      .string()
      .startsWith('/')
      .max(1000)
      .optional()
      .describe("The provider's path template as the twin routes it (`/v1/customers/{customer}`), or a concrete path (any when absent)."),
    body: z
      .record(z.string().max(200), bodyValue)
      .refine((b) => Object.keys(b).length <= 20, 'At most 20 fields')
      .optional()
      .describe('Top-level body fields and their values (compared as strings); all must match.'),
  })
  .describe('Which requests the fault may strike; every field given must match.');

export const createFaultBody = z
  .strictObject({
    twin_id: idParam.describe('The twin of the environment the fault applies to.'),
    match: faultMatchSchema.optional().describe('Which requests the fault may strike (default: every request of the twin).'),
    effect: faultEffectSchema,
    probability: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("The share of matching requests struck (default 1), drawn from the environment's seeded random source: the same requests fail on every run."),
  })
  .refine((f) => (f.effect.type !== 'latency' && f.effect.type !== 'late') || f.effect.ms + (f.effect.jitter_ms ?? 0) <= MAX_LATENCY_MS, {
    message: `ms + jitter_ms must be at most ${MAX_LATENCY_MS}`,
    path: ['effect'],
  })
  .meta({ id: 'FaultCreate' });

export const faultSchema = z
  .object({
    id: z.string().describe('`flt_…`; the request log names it (`fault`) on every answer it made, delayed or dropped.'),
    environment_id: z.string().meta({ format: 'uuid' }),
    twin_id: z.string().meta({ format: 'uuid' }),
    match: faultMatchSchema,
    effect: faultEffectSchema,
    probability: z.number(),
    created_at: z.string(),
  })
  .meta({ id: 'Fault' });

export type FaultView = z.infer<typeof faultSchema>;
export type FaultCreate = z.infer<typeof createFaultBody>;

export interface FaultServiceOptions {
  store: EnvironmentStore;
  environments: EnvironmentService;
  admin: TwinAdminClient;
}

type ReadyTwin = EnvironmentTwinRow & { address: string };

/** A twin that cannot be reached, or refuses, is the upstream failing (502); its sentence never names its address. */
async function upstream<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HttpError) throw e;
    if (e instanceof TwinAdminError) {
      if (e.status === 409) throw conflict((e.body as { detail?: string } | undefined)?.detail ?? 'The twin is busy; retry in a moment.');
      throw badGateway('The twin did not complete the request; it may be restarting. Retry in a moment.');
    }
    throw e;
  }
}

export class FaultService {
  /** One change to a twin's list at a time (each is a read, then a write of the whole list). */
  private readonly locks = new ClockLocks();

  constructor(private readonly o: FaultServiceOptions) {}

  private ready(twin: EnvironmentTwinRow): ReadyTwin {
    if (twin.state !== 'ready' || !twin.address) throw conflict(`Twin ${twin.id} is ${twin.state}; its faults can be read and set once it is ready.`);
    return twin as ReadyTwin;
  }

  private async read(twin: ReadyTwin): Promise<Fault[]> {
    return (await upstream(() => this.o.admin.expect<{ faults: Fault[] }>(200, twin.address, twin.admin_secret, 'GET', '/_twin/faults'))).faults;
  }

  private write(twin: ReadyTwin, faults: Fault[]): Promise<unknown> {
    return upstream(() => this.o.admin.expect(200, twin.address, twin.admin_secret, 'PUT', '/_twin/faults', { faults }));
  }

  private view(environmentId: string, twinId: string, f: Fault): FaultView {
    return { id: f.id, environment_id: environmentId, twin_id: twinId, match: f.match, effect: f.effect, probability: f.probability, created_at: f.created_at };
  }

  async create(orgId: string, environmentId: string, input: FaultCreate): Promise<FaultView> {
    const env = this.o.environments.environment(orgId, environmentId);
    if (env.status === 'expired') throw conflict(`Environment ${environmentId} has expired; its twins are stopped.`);
    const twin = this.ready(this.o.environments.twinOfEnvironment(orgId, env.id, input.twin_id));
    const fault: Fault = {
      id: `flt_${randomBytes(12).toString('hex')}`,
      match: { ...input.match, ...(input.match?.method ? { method: input.match.method.toUpperCase() } : {}) },
      effect: input.effect,
      probability: input.probability ?? 1,
      created_at: new Date().toISOString(),
    };
    await this.locks.run(twin.id, async () => {
      const faults = await this.read(twin);
      if (faults.length >= MAX_FAULTS) throw conflict(`Twin ${twin.id} holds ${MAX_FAULTS} faults already; delete one first.`);
      await this.write(twin, [...faults, fault]);
    });
    return this.view(env.id, twin.id, fault);
  }

  /** Every fault of the environment's ready twins, twin by twin, oldest first. */
  async all(orgId: string, environmentId: string): Promise<FaultView[]> {
    const env = this.o.environments.environment(orgId, environmentId);
    const twins = this.o.store.twinsOf(env.id).filter((t) => t.state === 'ready' && t.address) as ReadyTwin[];
    const lists = await Promise.all(twins.map(async (t) => (await this.read(t)).map((f) => this.view(env.id, t.id, f))));
    return lists.flat();
  }

  async list(orgId: string, environmentId: string, q: PageQuery): Promise<Page<FaultView>> {
    const all = await this.all(orgId, environmentId);
    return paginate(q, all.length, (limit, offset) => all.slice(offset, offset + limit));
  }

  async get(orgId: string, environmentId: string, faultId: string): Promise<FaultView> {
    const found = (await this.all(orgId, environmentId)).find((f) => f.id === faultId);
    if (!found) throw notFound(`Fault ${faultId} not found in environment ${environmentId}.`);
    return found;
  }

  async delete(orgId: string, environmentId: string, faultId: string): Promise<void> {
    const found = await this.get(orgId, environmentId, faultId);
    const twin = this.ready(this.o.environments.twinOfEnvironment(orgId, environmentId, found.twin_id));
    await this.locks.run(twin.id, async () => {
      const faults = await this.read(twin);
      await this.write(
        twin,
        faults.filter((f) => f.id !== faultId),
      );
    });
  }
}
