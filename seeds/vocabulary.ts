// What a twin tells the seeds component (its `seeding` export, from twins/<slug>/vocabulary/seeds.ts):
// the words its prompts use, and how resolved entities become provider API calls on its own model.

import type { SeedEntity } from './entities.js';
import type { SeedValues } from './values.js';
import type { BodyEncoding, SeedApi } from './seed-api.js';

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

export function isTwinSeeding(v: unknown): v is TwinSeeding {
  return !!v && typeof v === 'object' && 'vocabulary' in v && typeof (v as TwinSeeding).expand === 'function';
}
