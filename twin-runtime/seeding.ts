// The seeding contract: what a twin implements so the seeds component can turn a described starting
// state into records (its `seeding`, from twins/<slug>/vocabulary/seeds.ts), and what that component
// hands it. The words its prompts use (the vocabulary) feed the planners; `expand` creates the
// planned entities through the twin's own provider API. seeds/ implements the other side.

import type { EnvironmentClock } from './clock.js';

/** A described starting state shipped with a twin (the seeds area lists these). */
export interface SeedSuggestion {
  name: string;
  prompt: string;
}

/** One record a plan asks for, resolved from its groups (seeds/entities.ts). */
export interface SeedEntity {
  resource: string;
  /** Stable key for derived values: `g1:0`, `g4:0/g5:1`. */
  key: string;
  /** States of every group the entity belongs to, outermost first. */
  states: string[];
  /** Attributes merged from its groups, innermost wins. */
  attributes: Record<string, string>;
  children: SeedEntity[];
}

/** What an expansion throws with a sentence a person can act on (the seed fails with it). */
export class SeedExpansionError extends Error {}

export type BodyEncoding = 'form' | 'json';

export interface SeedCallOptions {
  encoding?: BodyEncoding;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Statuses that are not failures for this call (e.g. Stripe's 402 card_declined when asked for). */
  accept?: number[];
}

/**
 * The twin's provider API as an expansion calls it: requests carry the twin's own key and run
 * in-process on the seed file; a status of 400 or more (outside `accept`) throws SeedExpansionError.
 */
export interface SeedApi {
  /** Provider calls made so far. */
  readonly calls: number;
  readonly clock: EnvironmentClock;
  // biome-ignore lint/suspicious/noExplicitAny: an expansion reads the JSON answer field by field
  call<T = any>(method: string, path: string, body?: unknown, opts?: SeedCallOptions): Promise<{ status: number; body: T }>;
  /** Move the environment clock to `to`, running every lifecycle event due on the way. */
  advanceTo(to: Date): Promise<void>;
  advanceBy(ms: number): Promise<void>;
}

/** Deterministic values derived from (seed, entity key, field): the same seed gives the same records. */
export interface SeedValues {
  /** 32-bit unsigned number. */
  number(entityKey: string, field: string): number;
  /** Integer in [min, max]. */
  int(entityKey: string, field: string, min: number, max: number): number;
  /** Pick from the plan's pool for `poolField` (e.g. `customer.name`), else from `builtIn`. */
  pick(entityKey: string, poolField: string, builtIn: readonly string[]): string;
  /** A built-in pool of words (`first_name`, `last_name`, `word`, `topic`, `sentence`). */
  builtInPool(name: string): readonly string[];
  personName(entityKey: string, resource: string): string;
  /** A login-style handle (`ada-chen-3f`), unique enough inside one seed because it carries the key. */
  handle(entityKey: string, name: string): string;
  email(entityKey: string, name: string, domain?: string): string;
}

/** A twin-specific phrase the built-in planner recognises inside a clause. */
export interface AttributePhrase {
  /** Matched against the lower-cased clause; the match is removed once used. */
  pattern: RegExp;
  /** The attribute it sets (the twin's expander reads it). */
  attribute: string;
  /** The value, from the captured groups in the prompt's original case (index 0: the whole match). */
  value(groups: string[]): string;
}

export interface SeedVocabulary {
  /** Canonical resource → words that name it (singular and plural). The canonical name comes first. */
  nouns: Record<string, readonly string[]>;
  /** Canonical state → phrases that ask for it. */
  states: Record<string, readonly string[]>;
  /** Which resources each state applies to (a state on another resource is reported as unusable). */
  stateResources: Record<string, readonly string[]>;
  phrases: readonly AttributePhrase[];
  /** Resources that belong to another ("issue" → "repository"): a list of them continues to fill their owner. */
  ownedBy?: Record<string, string>;
  /** Words that may appear in a prompt without meaning anything (the twin's own name, "account"…). */
  fillers: readonly string[];
}

export interface SeedExpansionContext {
  api: SeedApi;
  values: SeedValues;
}

export interface TwinSeeding {
  vocabulary: SeedVocabulary;
  /** How request bodies are sent by default (Stripe and Slack: form; GitHub: json). */
  encoding: BodyEncoding;
  /**
   * Create the entities through the twin's provider API (as a real user would), advancing the
   * clock where a state needs time. Throws SeedExpansionError with a sentence on failure.
   */
  expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void>;
}
