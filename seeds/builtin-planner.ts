// The built-in planner: reads prompts written in a twin's seed vocabulary. A prompt is split into
// clauses; each clause is a count and a resource noun (a new group), a noun-less count (a narrowing
// of the last group: "12 on the Pro monthly plan"), or "N of them" (a narrowing of the group just
// described); "with N <noun>" adds owned records to each member. Names ("named Ana Lima"),
// amounts ("of $42"), states ("past due") and the twin's own phrases become attributes and states.
// Every word must be used: anything left over fails the plan with a sentence naming it.

import { DEFAULT_CLOCK_START, PLAN_VERSION, planSchema, type Plan, type PlanGroup } from './plan.js';
import { normaliseNumbers } from './numbers.js';
import type { PlanRequest, PlanResult, Planner } from './planner.js';
import type { SeedVocabulary } from '../twin-runtime/seeding.js';

const STOPWORDS = new Set(
  (
    'a an the with of and or on in at to for by from as is are be being been was were has have having ' +
    'each every that which who whom whose them those these they their its it all some there where ' +
    'also plus including include includes containing contains holding holds one another other others ' +
    'more total totally just only both new existing set up setup seed data state starting start ' +
    'account accounts workspace organization org named called them, whom s containing my our your ' +
    'currently already now still get gets getting give given should must will would can could make make ' +
    'two-thirds among out'
  ).split(/\s+/),
);

const CURRENCY_SIGNS: Record<string, string> = { $: 'usd', '€': 'eur', '£': 'gbp' };
const CURRENCY_WORDS: Record<string, string> = {
  usd: 'usd',
  dollar: 'usd',
  dollars: 'usd',
  eur: 'eur',
  euro: 'eur',
  euros: 'eur',
  gbp: 'gbp',
  pound: 'gbp',
  pounds: 'gbp',
};

interface Clause {
  /** The clause in original case (numbers normalised). */
  orig: string;
  /** Lower-case working copy; used spans are blanked with spaces so leftovers can be reported. */
  rest: string;
  /** `with …` tail of another clause (adds owned records). */
  owned: boolean;
  /** The tail follows another piece of the same clause ("8 customers with 2 payments"). */
  afterPiece: boolean;
  /** The clause itself starts with "each with" / "with" (adds records to the group just described). */
  leading: boolean;
}

function blank(c: Clause, start: number, end: number): void {
  c.rest = c.rest.slice(0, start) + ' '.repeat(end - start) + c.rest.slice(end);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function splitClauses(text: string): Clause[] {
  const out: Clause[] = [];
  // Sentence and list separators; "." only when it ends a sentence (not inside $42.50).
  const parts = text.split(/\s*(?:[;,\n]|\.(?=\s|$)|\s+and\s+|\s+plus\s+|\s+but\s+)\s*/i);
  for (const part of parts) {
    if (!part.trim()) continue;
    // "X with N nouns [with …]" — each `with` tail is its own (owned) clause. A clause may itself
    // start with "each with" ("8 messages, each with 2 replies").
    const leadingWith = /^\s*(?:each\s+)?(?:with|having)\s+/i.exec(part);
    const body = leadingWith ? part.slice(leadingWith[0].length) : part;
    const pieces = body.split(/\s+(?:each\s+)?(?:with|having|that has|who has|which has)\s+/i);
    pieces.forEach((p, i) => {
      const piece = p.trim();
      const leading = !!leadingWith && i === 0;
      if (piece) out.push({ orig: piece, rest: piece.toLowerCase(), owned: i > 0 || leading, afterPiece: i > 0, leading });
    });
  }
  return out;
}

function findDate(text: string): { clock?: string; text: string } {
  const re = /\b(?:as of|starting(?: on| at)?|beginning|dated|on)\s+(\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?)/i;
  const m = re.exec(text);
  if (!m) return { text };
  const raw = m[1]!.replace(' ', 'T');
  const iso = /t/i.test(raw) ? (/(z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`) : `${raw}T00:00:00Z`;
  const d = new Date(iso.toUpperCase());
  if (Number.isNaN(d.getTime())) return { text };
  return { clock: d.toISOString(), text: text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length) };
}

export class BuiltinPlanner implements Planner {
  readonly name = 'builtin' as const;

  async plan(req: PlanRequest): Promise<PlanResult> {
    return planFromPrompt(req.twin, req.prompt, req.seeding.vocabulary);
  }
}

export function describeVocabulary(v: SeedVocabulary): string {
  const nouns = Object.values(v.nouns)
    .map((words) => words[0])
    .join(', ');
  const states = Object.values(v.states)
    .map((words) => words[0])
    .join(', ');
  return `It understands counts of ${nouns}; the states ${states}; names ("named Ana Lima"), amounts ("of $42") and "N of them".`;
}

export function planFromPrompt(twin: string, prompt: string, vocab: SeedVocabulary): PlanResult {
  const groups: PlanGroup[] = [];
  const unusable: string[] = [];
  const problems: string[] = [];
  let lastGroup: PlanGroup | undefined;
  let lastNounGroup: PlanGroup | undefined;
  /** Top-level (not owned) groups by resource, newest last: "with" tails hang off these. */
  let lastHead: PlanGroup | undefined;
  let lastWasOfThem = false;
  /** The group the last "with" clause added records to ("with 12 open issues and 5 closed issues"). */
  let lastOwner: PlanGroup | undefined;
  /** The group the previous piece of the same clause created. */
  let pieceGroup: PlanGroup | undefined;

  const { clock, text } = findDate(normaliseNumbers(prompt));
  const nounWords = Object.entries(vocab.nouns)
    .flatMap(([resource, words]) => words.map((w) => ({ resource, word: w.toLowerCase() })))
    .sort((a, b) => b.word.length - a.word.length);
  const stateWords = Object.entries(vocab.states)
    .flatMap(([state, words]) => words.map((w) => ({ state, word: w.toLowerCase() })))
    .sort((a, b) => b.word.length - a.word.length);
  const fillers = new Set([twin, ...vocab.fillers.map((f) => f.toLowerCase())]);
  const nextId = () => `g${groups.length + 1}`;

  for (const c of splitClauses(text)) {
    if (!c.afterPiece) pieceGroup = undefined;
    const attributes: { name: string; value: string }[] = [];
    const states: string[] = [];

    // Names: quoted, capitalised words, or one token (repository-style names).
    const named =
      /\b(?:named|called|titled)\s+["'“‘]([^"'”’]+)["'”’]/i.exec(c.orig) ??
      /\b(?:named|called|titled)\s+(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*)/u.exec(c.orig) ??
      /\b(?:named|called|titled)\s+([\w.#/-]+)/i.exec(c.orig);
    if (named) {
      attributes.push({ name: 'name', value: named[1]!.trim() });
      blank(c, named.index, named.index + named[0].length);
    }

    // Amounts: "$42", "$42.50", "42 usd", "€10".
    const amount =
      /(?:\b(?:of|for|at|worth|costing)\s+)?([$€£])\s?(\d+(?:,\d{3})*(?:\.\d{1,2})?)/.exec(c.rest) ??
      /(?:\b(?:of|for|at|worth|costing)\s+)?(\d+(?:\.\d{1,2})?)\s*(usd|dollars?|eur|euros?|gbp|pounds?)\b/.exec(c.rest);
    if (amount) {
      const isSign = amount[1]! in CURRENCY_SIGNS;
      const value = Number((isSign ? amount[2]! : amount[1]!).replace(/,/g, ''));
      const currency = isSign ? CURRENCY_SIGNS[amount[1]!]! : CURRENCY_WORDS[amount[2]!]!;
      attributes.push({ name: 'amount', value: String(Math.round(value * 100)) }, { name: 'currency', value: currency });
      blank(c, amount.index, amount.index + amount[0].length);
    }

    // The twin's own phrases ("on the Pro monthly plan", "in #general").
    for (const phrase of vocab.phrases) {
      const re = new RegExp(phrase.pattern.source, phrase.pattern.flags.replace(/[gd]/g, '') + 'd');
      const m = re.exec(c.rest);
      if (!m) continue;
      const groups = (m.indices ?? []).map((span) => (span ? c.orig.slice(span[0], span[1]) : ''));
      attributes.push({ name: phrase.attribute, value: phrase.value(groups) });
      blank(c, m.index, m.index + m[0].length);
    }

    // States, longest phrase first.
    for (const { state, word } of stateWords) {
      const re = new RegExp(`\\b${escapeRegExp(word)}\\b`);
      const m = re.exec(c.rest);
      if (!m) continue;
      if (!states.includes(state)) states.push(state);
      blank(c, m.index, m.index + m[0].length);
    }

    // "N of them" / "of those" / "of which" / "N of the customers".
    const ofThem = /\b(?:of|among)\s+(?:them|those|these|which|whom)\b/.exec(c.rest);
    if (ofThem) blank(c, ofThem.index, ofThem.index + ofThem[0].length);

    // The resource noun, and the count right before it (up to two words between: "40 active customers").
    let resource: string | undefined;
    let count: number | undefined;
    for (const { resource: r, word } of nounWords) {
      const m = new RegExp(`\\b${escapeRegExp(word)}\\b`).exec(c.rest);
      if (!m) continue;
      resource = r;
      const before = c.rest.slice(0, m.index);
      const num = /(?:^|\s)(\d+|an?)\s+(?:(?:of\s+the|the)\s+)?(?:[a-z-]+\s+){0,2}$/.exec(before);
      if (num) {
        count = /^\d+$/.test(num[1]!) ? Number(num[1]) : 1;
        const start = num.index + num[0].indexOf(num[1]!);
        blank(c, start, start + num[1]!.length);
      }
      blank(c, m.index, m.index + m[0].length);
      break;
    }
    if (count === undefined) {
      const num = /(?:^|\s)(\d+)(?=\s|$)/.exec(c.rest);
      if (num) {
        count = Number(num[1]);
        const start = num.index + num[0].indexOf(num[1]!);
        blank(c, start, start + num[1]!.length);
      }
    }

    const leftovers = c.rest
      .split(/[^\p{L}\p{N}'#/_-]+/u)
      .map((w) => w.replace(/^['-]+|['-]+$/g, ''))
      .filter((w) => w && !STOPWORDS.has(w) && !fillers.has(w));
    if (leftovers.length > 0) {
      unusable.push(`"${leftovers.join(' ')}" (in "${c.orig.trim()}")`);
      continue;
    }
    if (resource === undefined && count === undefined && states.length === 0 && attributes.length === 0) continue;

    let group: PlanGroup;
    if (resource !== undefined && !ofThem) {
      if (count === undefined) {
        if (attributes.some((a) => a.name === 'name')) count = 1;
        else {
          problems.push(`"${c.orig.trim()}" does not say how many ${resource} records`);
          continue;
        }
      }
      // "with N nouns" adds records to each member of the group just described; after nothing
      // ("a Stripe account with 40 customers") it simply creates them. A following "and N nouns"
      // of a kind that belongs to that owner continues the list ("with 12 issues and 3 pull
      // requests"), as does a kind that belongs to a single record just described.
      const ownerKind = vocab.ownedBy?.[resource];
      let owner: PlanGroup | undefined;
      if (c.owned) owner = c.afterPiece ? pieceGroup : c.leading ? lastGroup : undefined;
      else if (ownerKind && lastOwner?.resource === ownerKind) owner = lastOwner;
      else if (ownerKind && lastHead?.resource === ownerKind && lastHead.count === 1) owner = lastHead;
      if (owner && ownerKind === undefined && !c.owned) owner = undefined;
      group = { id: nextId(), resource, count, within: null, owner: owner?.id ?? null, state: null, attributes };
      lastNounGroup = group;
      if (owner) lastOwner = owner;
      else {
        lastHead = group;
        lastOwner = undefined;
      }
    } else {
      // A narrowing: "of them" narrows the group just described; a bare count the last noun group;
      // a named noun group of the same resource narrows its latest group of that resource.
      let target = ofThem ? lastGroup : lastNounGroup;
      // "5 of them past due and 4 of them canceled": a record has one state (and one value per
      // attribute), so an "of them" that repeats the kind of description just given is a sibling
      // of the previous narrowing, not a narrowing of it.
      // Likewise when it asks for more records than the previous narrowing holds.
      if (ofThem && target && target.within !== null && lastWasOfThem) {
        const sameKind =
          (target.state !== null && states.length > 0) ||
          attributes.some((a) => target!.attributes.some((b) => b.name === a.name)) ||
          (count !== undefined && count > target.count);
        if (sameKind) target = groups.find((g) => g.id === target!.within) ?? target;
      }
      if (resource !== undefined && ofThem) {
        target = [...groups].reverse().find((g) => g.resource === resource && g === lastGroup) ?? [...groups].reverse().find((g) => g.resource === resource);
      }
      if (!target) {
        problems.push(`"${c.orig.trim()}" describes records before any were asked for`);
        continue;
      }
      if (count === undefined) {
        // No count: the description applies to the whole group ("all past due").
        target.attributes.push(...attributes);
        if (states.length) target.state = target.state ?? states.shift()!;
        for (const s of states) problems.push(`"${c.orig.trim()}" gives ${target.resource} records a second state '${s}'`);
        continue;
      }
      group = { id: nextId(), resource: target.resource, count, within: target.id, owner: null, state: null, attributes };
    }
    if (states.length > 1) problems.push(`"${c.orig.trim()}" asks for several states at once (${states.join(', ')})`);
    group.state = states[0] ?? null;
    if (group.state) {
      const allowed = vocab.stateResources[group.state] ?? [];
      if (!allowed.includes(group.resource)) {
        problems.push(`the state '${group.state}' does not apply to ${group.resource} records (it applies to ${allowed.join(', ') || 'nothing'})`);
      }
    }
    groups.push(group);
    lastGroup = group;
    pieceGroup = group;
    lastWasOfThem = !!ofThem;
  }

  if (unusable.length > 0 || problems.length > 0 || groups.length === 0) {
    const parts: string[] = [];
    if (unusable.length > 0) parts.push(`could not use ${unusable.join('; ')}`);
    if (problems.length > 0) parts.push(problems.join('; '));
    if (groups.length === 0 && parts.length === 0) parts.push('found nothing to create');
    return { ok: false, failure: `The built-in planner ${parts.join('; and ')}. ${describeVocabulary(vocab)}` };
  }
  const plan: Plan = {
    version: PLAN_VERSION,
    twin,
    clock_start: clock ?? DEFAULT_CLOCK_START,
    key: 'default',
    groups,
    pools: [],
  };
  const checked = planSchema.safeParse(plan);
  if (!checked.success) {
    return { ok: false, failure: `The built-in planner produced an invalid plan: ${checked.error.issues.map((i) => i.message).join('; ')}.` };
  }
  return { ok: true, plan: checked.data };
}
