// Resolve a plan's flat groups into the records to create: a list of top-level entities, each with
// its merged states and attributes and its owned children. Each entity carries a stable value key
// (group id + position, nested under its owner's key) so derived values never depend on what other
// groups ask for: adding one customer to a group changes nothing else.

import type { SeedEntity } from '../twin-runtime/seeding.js';
import type { Plan, PlanGroup } from './plan.js';

export class PlanResolutionError extends Error {}

export function resolvePlan(plan: Plan): SeedEntity[] {
  const roots: SeedEntity[] = [];
  const members = new Map<string, SeedEntity[]>();
  /** For an owned group: its members split per owner (narrowing applies per owner). */
  const perOwner = new Map<string, SeedEntity[][]>();
  /** How many members of a group its narrowing groups have taken (per owner slice). */
  const taken = new Map<string, number[]>();
  const byId = new Map<string, PlanGroup>(plan.groups.map((g) => [g.id, g]));

  const apply = (e: SeedEntity, g: PlanGroup) => {
    if (g.state) e.states.push(g.state);
    for (const a of g.attributes) e.attributes[a.name] = a.value;
  };

  for (const g of plan.groups) {
    if (g.within === null && g.owner === null) {
      const created: SeedEntity[] = [];
      for (let i = 0; i < g.count; i++) {
        const e: SeedEntity = { resource: g.resource, key: `${g.id}:${i}`, states: [], attributes: {}, children: [] };
        apply(e, g);
        created.push(e);
      }
      roots.push(...created);
      members.set(g.id, created);
      perOwner.set(g.id, [created]);
    } else if (g.owner !== null) {
      const owners = members.get(g.owner) ?? [];
      const all: SeedEntity[] = [];
      const slices: SeedEntity[][] = [];
      for (const owner of owners) {
        const slice: SeedEntity[] = [];
        for (let i = 0; i < g.count; i++) {
          const e: SeedEntity = { resource: g.resource, key: `${owner.key}/${g.id}:${i}`, states: [], attributes: {}, children: [] };
          apply(e, g);
          owner.children.push(e);
          slice.push(e);
        }
        all.push(...slice);
        slices.push(slice);
      }
      members.set(g.id, all);
      perOwner.set(g.id, slices);
    } else {
      const parentId = g.within!;
      const slices = perOwner.get(parentId) ?? [];
      const used = taken.get(parentId) ?? slices.map(() => 0);
      const picked: SeedEntity[] = [];
      const pickedSlices: SeedEntity[][] = [];
      slices.forEach((slice, s) => {
        const from = used[s]!;
        if (from + g.count > slice.length) {
          const parent = byId.get(parentId)!;
          const left = slice.length - from;
          throw new PlanResolutionError(
            `The plan asks for ${g.count} ${g.resource} record(s) within group '${parentId}' (${parent.count} ${parent.resource}), ` +
              `but only ${left} of them are not already given another description.`,
          );
        }
        const part = slice.slice(from, from + g.count);
        used[s] = from + g.count;
        for (const e of part) apply(e, g);
        picked.push(...part);
        pickedSlices.push(part);
      });
      taken.set(parentId, used);
      members.set(g.id, picked);
      perOwner.set(g.id, pickedSlices);
    }
  }
  return roots;
}

/** Every entity, depth first (owners before their children). */
export function* walkEntities(roots: SeedEntity[]): Generator<SeedEntity> {
  for (const e of roots) {
    yield e;
    yield* walkEntities(e.children);
  }
}
