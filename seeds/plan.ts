// The plan: explicit data a planner produces from a prompt and the expander turns into records.
// It is stored with the seed, so a generated seed can always be explained and regenerated.
//
// Groups are flat (no recursion, so the same shape works as an LLM JSON schema):
// - a group with neither `within` nor `owner` adds `count` new records of `resource`;
// - `within: g` narrows: it takes the next `count` not yet narrowed members of group g and gives
//   them its state and attributes ("12 on the Pro monthly plan, 3 of them past due");
// - `owner: g` adds `count` records of `resource` to EACH member of group g ("with two charges").
// An anchor is a group of one with fixed attributes such as a name ("a customer named Ana Lima").

import { z } from 'zod';
import { isForbiddenKey } from '../twin-runtime/safe-input.js';

export const PLAN_VERSION = 1;
/** Where a seed's clock starts unless the prompt says otherwise: fixed, so a prompt always gives the same records. */
export const DEFAULT_CLOCK_START = '2026-01-01T00:00:00.000Z';
/** Upper bound on the records one seed may ask for (keeps a runaway prompt from filling the disk). */
export const MAX_PLANNED_RECORDS = 200_000;

const attribute = z.object({
  // Attribute names become keys of an entity's attributes object.
  name: z
    .string()
    .min(1)
    .max(60)
    .refine((n) => !isForbiddenKey(n), { message: 'an attribute may not be named __proto__, constructor or prototype' }),
  value: z.string().max(500),
});

export const planGroupSchema = z.object({
  id: z.string().min(1).max(40),
  resource: z.string().min(1).max(60),
  count: z.number().int().min(1).max(MAX_PLANNED_RECORDS),
  within: z.string().nullable(),
  owner: z.string().nullable(),
  state: z.string().nullable(),
  attributes: z.array(attribute).max(40),
});

export const planSchema = z
  .object({
    version: z.literal(PLAN_VERSION),
    twin: z.string(),
    /** The environment clock at the start of expansion (the seed's own clock may end later). */
    clock_start: z.iso.datetime({ offset: true }),
    /** Mixed into every derived value; two plans with the same key give the same values. */
    key: z.string().min(1).max(100),
    groups: z.array(planGroupSchema).min(1).max(500),
    /** Per-field value pools (`customer.name`), used before the built-in pools. */
    pools: z.array(z.object({ field: z.string().min(1), values: z.array(z.string()).min(1) })).max(50),
  })
  .superRefine((plan, ctx) => {
    const seen = new Map<string, z.infer<typeof planGroupSchema>>();
    plan.groups.forEach((g, i) => {
      if (seen.has(g.id)) ctx.addIssue({ code: 'custom', path: ['groups', i, 'id'], message: `duplicate group id '${g.id}'` });
      if (g.within !== null && g.owner !== null) {
        ctx.addIssue({ code: 'custom', path: ['groups', i], message: `group '${g.id}' cannot have both within and owner` });
      }
      const ref = g.within ?? g.owner;
      if (ref !== null) {
        const target = seen.get(ref);
        if (!target) {
          ctx.addIssue({ code: 'custom', path: ['groups', i], message: `group '${g.id}' refers to '${ref}', which is not an earlier group` });
        } else if (g.within !== null && target.resource !== g.resource) {
          ctx.addIssue({
            code: 'custom',
            path: ['groups', i, 'resource'],
            message: `group '${g.id}' narrows '${ref}' so its resource must be '${target.resource}'`,
          });
        }
      }
      seen.set(g.id, g);
    });
  });

export type Plan = z.infer<typeof planSchema>;
export type PlanGroup = z.infer<typeof planGroupSchema>;

/** JSON schema of a plan for an LLM's structured answer (strict mode: every property required). */
export function planJsonSchema(resources: readonly string[], states: readonly string[]): Record<string, unknown> {
  const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['clock_start', 'groups', 'pools'],
    properties: {
      clock_start: { anyOf: [{ type: 'string', description: 'ISO 8601 date-time the data is as of' }, { type: 'null' }] },
      groups: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'resource', 'count', 'within', 'owner', 'state', 'attributes'],
          properties: {
            id: { type: 'string' },
            resource: { type: 'string', enum: [...resources] },
            count: { type: 'integer' },
            within: nullableString,
            owner: nullableString,
            state: { anyOf: [{ type: 'string', enum: [...states] }, { type: 'null' }] },
            attributes: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'value'],
                properties: { name: { type: 'string' }, value: { type: 'string' } },
              },
            },
          },
        },
      },
      pools: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['field', 'values'],
          properties: { field: { type: 'string' }, values: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  };
}

/** Records the plan asks for directly (owned groups multiply by their owner's size). */
export function plannedRecordCount(plan: Plan): number {
  const size = new Map<string, number>();
  let total = 0;
  for (const g of plan.groups) {
    if (g.within !== null) {
      size.set(g.id, g.count);
      continue;
    }
    const n = g.owner !== null ? g.count * (size.get(g.owner) ?? 0) : g.count;
    size.set(g.id, n);
    total += n;
  }
  return total;
}
