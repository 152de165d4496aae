// The phrasebook contract: what a twin's test-matcher vocabulary says (twins/<slug>/vocabulary/
// phrasebook.ts, its definition's `phrasebook`) — for each operation the phrase that names it, the
// provider route it compiles to, the modifiers it understands — and the rules that turn a modifier
// into matcher fields. The control plane's compiler (control-plane/testing/phrasebook.ts) reads
// every twin's entries; docs/matchers.md is the matcher language they produce.

/**
 * The fields of a matcher (control-plane/testing/matcher-language.ts) a modifier rule fills: JSON
 * Pointer or parameter name → a value or an operator object (`{contains: …}`, `{var: name}`).
 */
export interface MatcherFields {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  response?: { body?: Record<string, unknown> };
}

/** A modifier the clause parser found (`with email x`, `labelled bug`, `$42`, `#general`, …). */
export type ModifierName =
  | 'email'
  | 'name'
  | 'title'
  | 'text'
  | 'label'
  | 'amount'
  | 'currency'
  | 'channel'
  | 'repo'
  | 'number'
  | 'thread'
  | 'emoji'
  | 'head'
  | 'base'
  | 'assignee'
  | 'description'
  | 'stripe_id';

export interface Modifier {
  name: ModifierName;
  value: string;
}

/** How a modifier narrows the operation's matcher; returns a sentence when the value cannot be used. */
// biome-ignore lint/suspicious/noConfusingVoidType: rules written `(m, v) => void (m.x = …)` answer nothing
export type ModifierRule = (m: MatcherFields, value: string) => string | void;

export interface PhrasebookOperation {
  twin: string;
  /** Short label used in failure sentences (`create a customer`). */
  label: string;
  /** Verb and object, matched at the start of the clause after count words are removed. */
  phrase: RegExp;
  method: string;
  path: string | string[];
  modifiers: Partial<Record<ModifierName, ModifierRule>>;
  /** What the operation makes, so a later step can say "that customer"; the capture reads its id. */
  produces?: { noun: string; capture: string };
  /** Nouns a later step may refer back to ("that charge") → where the captured id is compared. */
  refers?: Record<string, (m: MatcherFields, variable: string) => void>;
  /** Slack answers 200 with `ok: false`; success there means `ok: true` in the body. */
  successBody?: Record<string, unknown>;
}

/** `create` → `(?:create|creates|created|creating)`; irregular past forms are passed in. */
export function v(base: string, ...more: string[]): string {
  const stem = base.endsWith('e') ? base.slice(0, -1) : base;
  const past = base.endsWith('e') ? `${base}d` : `${base}ed`;
  return `(?:${[base, `${base}s`, past, `${stem}ing`, ...more].join('|')})`;
}

export const A = String.raw`(?:(?:a|an|any|the|one|new|some|that|this|more|other)\s+)*`;
export const op = (text: string) => new RegExp(String.raw`^\s*(?:` + text + String.raw`)(?=\s|$)`, 'i');

export const bodyContains = (pointer: string) => (m: MatcherFields, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { contains: value } };
};
export const bodyEq = (pointer: string) => (m: MatcherFields, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: value };
};
export const bodyIncludes = (pointer: string) => (m: MatcherFields, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { includes: value } };
};
export const param = (name: string) => (m: MatcherFields, value: string) => {
  m.params = { ...(m.params ?? {}), [name]: value };
};
export const paramVar = (name: string) => (m: MatcherFields, variable: string) => {
  m.params = { ...(m.params ?? {}), [name]: { var: variable } };
};
export const bodyVar = (pointer: string) => (m: MatcherFields, variable: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { var: variable } };
};
export const amountIn = (where: 'body' | 'response') => (pointer: string) => (m: MatcherFields, value: string) => {
  if (where === 'body') m.body = { ...(m.body ?? {}), [pointer]: Number(value) };
  else m.response = { ...(m.response ?? {}), body: { ...(m.response?.body ?? {}), [pointer]: Number(value) } };
};
