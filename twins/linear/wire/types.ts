// How the twin answers fields of Linear's schema: per GraphQL type, the fields it computes
// (`url`, `priorityLabel`, `isMe`, root queries with arguments), the to-one relations it follows
// (`Issue.team`) and the collections it pages (`Issue.children`, `Query.issues`). Any other field
// is read from the stored record, else answered with its type's empty value (wire/graphql.ts).

import type { TwinContext } from '../../../twin-runtime/contract.js';

export type Rec = Record<string, unknown>;
export type Args = Record<string, unknown>;

export interface TypeModel {
  /** Fields worked out from the record and arguments. */
  computed?: Record<string, (rec: Rec, args: Args, ctx: TwinContext) => unknown>;
  /** To-one relations: the related record or null. */
  one?: Record<string, (rec: Rec, ctx: TwinContext) => Rec | null>;
  /** Collections: every related record (the connection pages, filters and orders them). */
  many?: Record<string, (rec: Rec, ctx: TwinContext, args: Args) => Rec[]>;
}

export type TypeModels = Record<string, TypeModel>;

/** Merge the type models of several resources (each adds fields to Query, Mutation and its own types). */
export function mergeModels(...parts: TypeModels[]): TypeModels {
  const out: TypeModels = {};
  for (const part of parts) {
    for (const [type, model] of Object.entries(part)) {
      const into = (out[type] ??= {});
      into.computed = { ...into.computed, ...model.computed };
      into.one = { ...into.one, ...model.one };
      into.many = { ...into.many, ...model.many };
    }
  }
  return out;
}
