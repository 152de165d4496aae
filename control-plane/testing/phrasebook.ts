// The built-in compiler: an outcome written in the phrasebook's sentences (docs/matchers.md) →
// assertions of the matcher language. Deterministic and offline. Anything it does not understand
// fails with a sentence naming the words it could not place, never with a guess.

import { MATCHER_VERSION, type Assertion, type CountBounds, type Matcher, type SequenceStep } from './matcher-language.js';
import { phrasebookOperations, type Modifier, type ModifierName, type Operation } from './phrasebook-operations.js';

export type CompileResult = { ok: true; assertions: Assertion[] } | { ok: false; failure: string };

const NUMBER_WORDS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const NUM = String.raw`(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten)`;
const toNumber = (s: string) => NUMBER_WORDS[s.toLowerCase()] ?? Number(s);
const VAL = String.raw`(§\d+§|[^\s,]+)`;

/** Words a clause may keep after its operation and modifiers are read. */
const FILLER = new Set(
  'a an any the new some successfully only also just then first finally to with for of on in into from by at request requests call calls customer customers charge charges payment intent issue issues pull pr channel repo repository branch message messages amount label labels total email address named called titled product subscription refund invoice price thread'.split(
    ' ',
  ),
);

const REFERABLE = [
  'payment intent',
  'pull request',
  'customer',
  'charge',
  'payment',
  'issue',
  'message',
  'thread',
  'channel',
  'product',
  'subscription',
  'refund',
  'invoice',
  'price',
];

interface Clause {
  /** The clause as written (placeholders restored), kept as `says`. */
  text: string;
  /** The clause with quoted values replaced by §n§. */
  work: string;
}

/** Compile with every twin's phrasebook (their definitions' `phrasebook`, loaded once). */
export async function compilePhrasebook(outcome: string, twins: string[]): Promise<CompileResult> {
  return compileWith(await phrasebookOperations(), outcome, twins);
}

function compileWith(operations: readonly Operation[], outcome: string, twins: string[]): CompileResult {
  const quoted: string[] = [];
  const protectedText = outcome.replace(/"([^"]*)"|“([^”]*)”|(?<=^|\s)'([^']+)'(?=[\s,.;!?]|$)/g, (_m, a?: string, b?: string, c?: string) => {
    quoted.push(a ?? b ?? c ?? '');
    return `§${quoted.length - 1}§`;
  });
  const restore = (s: string) => s.replace(/§(\d+)§/g, (_m, i: string) => JSON.stringify(quoted[Number(i)]));
  const value = (s: string) => s.replace(/§(\d+)§/g, (_m, i: string) => quoted[Number(i)]!);

  const sentences = protectedText
    .split(/[.;!?]+(?=\s|$)|\n+/)
    .map((s) => stripSubject(s))
    .filter((s) => s.length > 0);
  if (sentences.length === 0) return { ok: false, failure: 'The outcome is empty; describe at least one thing the agent should or should not do.' };

  const assertions: Assertion[] = [];
  for (const sentence of sentences) {
    const steps = splitOrder(sentence);
    if (steps.length > 1) {
      const compiled = compileSequence(
        operations,
        steps.map((w) => ({ work: w, text: restore(w) })),
        twins,
        value,
      );
      if (!compiled.ok) return compiled;
      assertions.push({ version: MATCHER_VERSION, says: restore(sentence), sequence: compiled.steps });
      continue;
    }
    for (const part of splitConjunctions(sentence)) {
      const clause = { work: part, text: restore(part.replace(/ – /g, ' and ')) };
      const parsed = parseClause(operations, clause, twins, value, false);
      if (!parsed.ok) return parsed;
      const { matcher, count } = parsed;
      if (count === 'never') assertions.push({ version: MATCHER_VERSION, says: clause.text, never: withoutSuccess(matcher) });
      else assertions.push({ version: MATCHER_VERSION, says: clause.text, count: count ?? { at_least: 1 }, match: matcher });
    }
  }
  return { ok: true, assertions };
}

function stripSubject(s: string): string {
  return s
    .trim()
    .replace(/^(?:and\s+|but\s+|also\s+)/i, '')
    .replace(/^(?:the\s+agent|agent|the\s+bot|bot|it|they)\s+/i, '')
    .replace(/^(?:should|must|has|have|had|will|did)\s+(?!not\b|never\b)/i, '')
    .replace(/^(?:first|firstly)\s*,?\s+/i, '')
    .trim();
}

/** Order words turn a sentence into ordered steps: "A, then B", "A and then B", "B after A", "A before B". */
function splitOrder(sentence: string): string[] {
  const parts = sentence.split(/\s*,?\s+(?:and\s+then|then|after\s+that|afterwards|followed\s+by|and\s+finally|finally)\s+/i).map(stripSubject);
  const out: string[] = [];
  for (const p of parts) {
    const before = p.split(/\s+before\s+/i);
    if (before.length === 2) {
      out.push(stripSubject(before[0]!), stripSubject(before[1]!));
      continue;
    }
    const after = p.split(/\s+after\s+(?!that\b)/i);
    if (after.length === 2) {
      out.push(stripSubject(after[1]!), stripSubject(after[0]!));
      continue;
    }
    out.push(p);
  }
  return out.filter((s) => s.length > 0);
}

/** "A and B", "A, B and C" → separate assertions ("between 2 and 3" stays whole). */
function splitConjunctions(sentence: string): string[] {
  const guarded = sentence.replace(new RegExp(String.raw`\bbetween\s+${NUM}\s+and\s+${NUM}`, 'gi'), (_m, a: string, b: string) => `between ${a} – ${b}`);
  return guarded
    .split(/\s*,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+/i)
    .map(stripSubject)
    .filter((s) => s.length > 0);
}

type StepResult = { ok: true; steps: SequenceStep[] } | { ok: false; failure: string };

function compileSequence(operations: readonly Operation[], clauses: Clause[], twins: string[], value: (s: string) => string): StepResult {
  const steps: SequenceStep[] = [];
  const produced: { noun: string; step: number; op: Operation }[] = [];
  for (const [k, clause] of clauses.entries()) {
    const parsed = parseClause(operations, clause, twins, value, true);
    if (!parsed.ok) return parsed;
    if (parsed.count !== undefined) {
      return {
        ok: false,
        failure: `Could not compile "${clause.text}": counts and "never" cannot be part of an ordered sequence; write them as a separate sentence.`,
      };
    }
    const step: SequenceStep = { says: clause.text, match: parsed.matcher };
    if (parsed.reference) {
      const source = [...produced].reverse().find((p) => p.noun === parsed.reference || (parsed.reference === 'payment' && p.noun === 'payment intent'));
      const use = parsed.op.refers?.[parsed.reference];
      if (!source) return { ok: false, failure: `Could not compile "${clause.text}": no earlier step creates the ${parsed.reference} it refers to.` };
      if (!use) return { ok: false, failure: `Could not compile "${clause.text}": ${parsed.op.label} cannot refer to an earlier ${parsed.reference}.` };
      const variable = `${source.noun.replace(/\s+/g, '_')}_${source.step + 1}`;
      const earlier = steps[source.step]!;
      earlier.capture = { ...(earlier.capture ?? {}), [variable]: source.op.produces!.capture };
      use(step.match, variable);
    }
    if (parsed.op.produces) produced.push({ noun: parsed.op.produces.noun, step: k, op: parsed.op });
    steps.push(step);
  }
  return { ok: true, steps };
}

type ClauseResult =
  | { ok: true; matcher: Matcher; count: CountBounds | 'never' | undefined; op: Operation; reference?: string }
  | { ok: false; failure: string };

function parseClause(operations: readonly Operation[], clause: Clause, twins: string[], value: (s: string) => string, inSequence: boolean): ClauseResult {
  const fail = (why: string): ClauseResult => ({ ok: false, failure: `Could not compile "${clause.text}": ${why}` });
  let work = ` ${clause.work} `;

  // 1. Negation and counts.
  let count: CountBounds | 'never' | undefined;
  const setCount = (c: CountBounds | 'never') => {
    if (count !== undefined) return false;
    count = c;
    return true;
  };
  work = work.replace(/^\s*(?:never|did\s+not|didn'?t|does\s+not|doesn'?t|do\s+not|don'?t|must\s+not|mustn'?t|should\s+not|shouldn'?t|not)\s+/i, () => {
    setCount('never');
    return ' ';
  });
  const countRules: [RegExp, (m: RegExpExecArray) => CountBounds | 'never'][] = [
    [new RegExp(String.raw`\bbetween\s+${NUM}\s+(?:and|–)\s+${NUM}(?:\s+times)?`, 'i'), (m) => ({ between: [toNumber(m[1]!), toNumber(m[2]!)] })],
    [new RegExp(String.raw`\bexactly\s+${NUM}(?:\s+times)?`, 'i'), (m) => ({ exactly: toNumber(m[1]!) })],
    [new RegExp(String.raw`\bat\s+least\s+${NUM}(?:\s+times)?`, 'i'), (m) => ({ at_least: toNumber(m[1]!) })],
    [new RegExp(String.raw`\b(?:at\s+most|no\s+more\s+than|up\s+to)\s+${NUM}(?:\s+times)?`, 'i'), (m) => ({ at_most: toNumber(m[1]!) })],
    [new RegExp(String.raw`\bmore\s+than\s+${NUM}(?:\s+times)?`, 'i'), (m) => ({ at_least: toNumber(m[1]!) + 1 })],
    [new RegExp(String.raw`\b(?:fewer|less)\s+than\s+${NUM}(?:\s+times)?`, 'i'), (m) => (toNumber(m[1]!) <= 1 ? 'never' : { at_most: toNumber(m[1]!) - 1 })],
    [/\b(?:only\s+|exactly\s+)?once\b/i, () => ({ exactly: 1 })],
    [/\btwice\b/i, () => ({ exactly: 2 })],
    [/\bthrice\b/i, () => ({ exactly: 3 })],
    [new RegExp(String.raw`\b${NUM}\s+times\b`, 'i'), (m) => ({ exactly: toNumber(m[1]!) })],
    [/\bonly\s+one\b/i, () => ({ exactly: 1 })],
    [/\bno\s+(?!other\b)(?=[a-z])/i, () => 'never'],
  ];
  for (const [re, make] of countRules) {
    const m = re.exec(work);
    if (!m) continue;
    if (!setCount(make(m))) return fail('it states more than one count; use one of exactly, at least, at most, between, never.');
    work = work.slice(0, m.index) + ' ' + work.slice(m.index + m[0].length);
  }

  // 2. Modifiers (values are quoted §n§ placeholders or single words).
  const modifiers: Modifier[] = [];
  const take = (re: RegExp, make: (m: RegExpExecArray) => Modifier[]) => {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
    work = work.replace(g, (...args) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      modifiers.push(...make(m));
      return ' ';
    });
  };
  // A generic "called POST /path" clause names its route directly.
  const generic =
    /^\s*(?:called|requested|hit|sent\s+(?:a\s+)?(?:request\s+to\s+)?|made\s+(?:a\s+)?(?:request\s+to\s+)?)\s*(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)\s*$/i.exec(
      work,
    );
  if (generic) return genericClause(twins, generic[1]!.toUpperCase(), generic[2]!, count);

  take(/\bfrom\s+(?:branch\s+)?(§\d+§|[\w./-]+)\s+(?:into|to|onto)\s+(?:branch\s+)?(§\d+§|[\w./-]+)/i, (m) => [
    { name: 'head', value: value(m[1]!) },
    { name: 'base', value: value(m[2]!) },
  ]);
  take(/\b(?:in|on|to|from|for)\s+(?:the\s+)?(?:repo(?:sitory)?\s+)?([\w.-]+\/[\w.-]+)/i, (m) => [{ name: 'repo', value: m[1]! }]);
  take(new RegExp(String.raw`\b(?:with|using|for)\s+(?:the\s+|an?\s+)?e-?mail(?:\s+address)?\s+${VAL}`, 'i'), (m) => [{ name: 'email', value: value(m[1]!) }]);
  take(/(?<![\w.+-])([\w.+-]+@[\w-]+(?:\.[\w-]+)+)/, (m) => [{ name: 'email', value: m[1]! }]);
  take(new RegExp(String.raw`\b(?:titled|entitled|with\s+(?:the\s+|a\s+)?title)\s+${VAL}`, 'i'), (m) => [{ name: 'title', value: value(m[1]!) }]);
  take(new RegExp(String.raw`\bwith\s+(?:the\s+|a\s+)?description\s+${VAL}`, 'i'), (m) => [{ name: 'description', value: value(m[1]!) }]);
  take(new RegExp(String.raw`\b(?:containing|that\s+says|saying|mentioning|with\s+(?:the\s+)?text)\s+${VAL}`, 'i'), (m) => [
    { name: 'text', value: value(m[1]!) },
  ]);
  take(new RegExp(String.raw`\b(?:labell?ed|tagged|with\s+(?:the\s+|a\s+)?label)\s+${VAL}`, 'i'), (m) => [{ name: 'label', value: value(m[1]!) }]);
  take(new RegExp(String.raw`(?<=\S)\s+(?:named|called|with\s+(?:the\s+)?name)\s+${VAL}`, 'i'), (m) => [{ name: 'name', value: value(m[1]!) }]);
  take(new RegExp(String.raw`(?<=\blabels?\s+)${VAL}(?=\s+(?:to|on)\b)`, 'i'), (m) => [{ name: 'label', value: value(m[1]!) }]);
  take(/\bassigned\s+to\s+@?([\w-]+)/i, (m) => [{ name: 'assignee', value: m[1]! }]);
  take(/(?:\b(?:of|for)\s+)?(?:\$|€|£|\b(?:usd|eur|gbp)\s*)(\d+(?:,\d{3})*(?:\.\d{1,2})?)(?![\d.])/i, (m) => [
    { name: 'amount', value: String(Math.round(Number(m[1]!.replace(/,/g, '')) * 100)) },
  ]);
  take(/(?:\b(?:of|for)\s+)?\b(\d+)\s+cents\b/i, (m) => [{ name: 'amount', value: m[1]! }]);
  take(/\bin\s+(usd|eur|gbp|jpy|cad|aud|chf)\b/i, (m) => [{ name: 'currency', value: m[1]!.toLowerCase() }]);
  take(/\b(?:in\s+(?:a|the)\s+thread|as\s+an?\s+(?:thread(?:ed)?\s+)?reply|in\s+reply|threaded)\b/i, () => [{ name: 'thread', value: 'true' }]);
  take(/(?:\bwith\s+(?:the\s+|an?\s+)?(?:emoji\s+|reaction\s+)?)?:([\w+-]+):/i, (m) => [{ name: 'emoji', value: m[1]! }]);
  take(/(?:\b(?:to|in|on|into)\s+(?:the\s+)?(?:channel\s+)?)?(#[A-Za-z][\w-]*|\bC[A-Z0-9]{8,}\b)(?:\s+channel\b)?/, (m) => [{ name: 'channel', value: m[1]! }]);
  take(/#(\d+)\b/, (m) => [{ name: 'number', value: m[1]! }]);
  take(/\b((?:cus|ch|py|pi|sub|prod|price|in|re)_[A-Za-z0-9]+)\b/, (m) => [{ name: 'stripe_id', value: m[1]! }]);

  // 3. A reference to what an earlier step made ("that customer", "the same charge").
  let reference: string | undefined;
  if (inSequence) {
    const refRe = new RegExp(String.raw`\b(?:that|the\s+same|this|its|their)\s+(${REFERABLE.map((n) => n.replace(' ', '\\s+')).join('|')})\b`, 'i');
    const m = refRe.exec(work);
    if (m) {
      reference = m[1]!.toLowerCase().replace(/\s+/g, ' ');
      work = work.slice(0, m.index) + ' ' + m[1] + ' ' + work.slice(m.index + m[0].length);
    }
  }

  // 4. The operation: its phrase must open what is left of the clause.
  const candidates = operations.map((op) => ({ op, m: op.phrase.exec(work) })).filter((c) => c.m !== null);
  const inTwins = candidates.filter((c) => twins.includes(c.op.twin));
  if (inTwins.length === 0) {
    if (candidates.length > 0) {
      const names = [...new Set(candidates.map((c) => c.op.twin))].join(' or ');
      return fail(`"${candidates[0]!.op.label}" is a ${names} operation, but this test's twins are ${twins.join(', ')}.`);
    }
    return fail(
      `no phrase of the phrasebook starts "${squash(clause.work).split(' ').slice(0, 4).join(' ')}"; see docs/matchers.md for the sentences it understands, or send explicit assertions.`,
    );
  }
  inTwins.sort((a, b) => b.m![0].length - a.m![0].length);
  const { op, m } = inTwins[0]!;
  work = work.slice(0, m!.index) + ' ' + work.slice(m!.index + m![0].length);

  const leftover = squash(work)
    .split(' ')
    .filter((w) => w && !FILLER.has(w.toLowerCase()) && !/^§\d+§$/.test(w));
  const strayQuoted = squash(work).match(/§\d+§/g);
  if (leftover.length > 0) return fail(`the words "${leftover.join(' ')}" are not part of any phrase for ${op.label}; see docs/matchers.md.`);
  if (strayQuoted) return fail(`the quoted value ${value(strayQuoted[0]!)} is not attached to a modifier (named, titled, containing, labelled, with email …).`);

  // 5. Build the matcher.
  const matcher: Matcher = { twin: op.twin, method: op.method, path: op.path };
  for (const mod of modifiers) {
    const rule = op.modifiers[mod.name as ModifierName];
    if (!rule) return fail(`${describeModifier(mod)} does not apply to ${op.label}.`);
    const problem = rule(matcher, mod.value);
    if (problem) return fail(`${problem}.`);
  }
  if (count !== 'never') {
    const successBody = { ...(op.successBody ?? {}), ...(matcher.response?.body ?? {}) };
    matcher.response = { status: '2xx', ...(Object.keys(successBody).length > 0 ? { body: successBody } : {}) };
  }
  return { ok: true, matcher, count, op, reference };
}

function genericClause(twins: string[], method: string, path: string, count: CountBounds | 'never' | undefined): ClauseResult {
  const matcher: Matcher = { method, path };
  if (twins.length === 1) matcher.twin = twins[0];
  if (count !== 'never') matcher.response = { status: '2xx' };
  const op: Operation = { twin: (twins[0] ?? 'stripe') as Operation['twin'], label: `${method} ${path}`, phrase: /$^/, method, path, modifiers: {} };
  return { ok: true, matcher, count, op };
}

/** A `never` counts every attempt, whatever the answer: an agent that tried to delete did not hold back. */
function withoutSuccess(m: Matcher): Matcher {
  const { response: _response, ...rest } = m;
  return rest;
}

function describeModifier(m: Modifier): string {
  switch (m.name) {
    case 'amount':
      return `an amount (${m.value} in minor units)`;
    case 'stripe_id':
      return `the id ${m.value}`;
    case 'channel':
      return `the channel ${m.value}`;
    case 'number':
      return `#${m.value}`;
    case 'thread':
      return 'a thread';
    default:
      return `"${m.name} ${m.value}"`;
  }
}

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
