// Compile-time checks of assertions, whoever wrote them (phrasebook, language model or caller):
// operators well formed, variables captured before use, the twin among the test's twins, and each
// method + path served by that twin, with body and query fields the operation documents.

import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { isOperatorObject, type Assertion, type Matcher } from './matcher-language.js';
import { checkOperator, patternsIn } from './operators.js';
import { patternProblem } from './pattern.js';
import { CAPTURE_SOURCE } from './request-matcher.js';
import { routesFor, twinSurface } from './twin-surface.js';

export interface AssertionProblem {
  /** Index of the assertion in the list. */
  index: number;
  /** Where inside the assertion (`match.path`, `sequence.1.match.body`). */
  at: string;
  message: string;
}

/**
 * Why each pattern cannot be used (undefined where it can). Compiling a large pattern takes a while,
 * so the API passes its judges' thread (judges.ts); the default compiles here (tests, tools).
 */
export type PatternChecker = (sources: string[], deadlineMs?: number) => Promise<(string | undefined)[]>;

export const checkPatternsHere: PatternChecker = async (sources) => sources.map(patternProblem);

/** Where a `matches` pattern sits, to report its problem there. */
interface PatternAt {
  index: number;
  at: string;
  where: string;
  source: string;
}

export async function checkAssertions(
  assertions: Assertion[],
  twins: string[],
  checkPatterns: PatternChecker = checkPatternsHere,
): Promise<AssertionProblem[]> {
  const problems: AssertionProblem[] = [];
  const patterns: PatternAt[] = [];
  for (const [index, a] of assertions.entries()) {
    const report = (at: string, message: string) => problems.push({ index, at, message });
    const collect = (at: string) => (where: string, source: string) => patterns.push({ index, at, where, source });
    if ('sequence' in a) {
      const known = new Set<string>();
      for (const [k, step] of a.sequence.entries()) {
        await checkMatcher(step.match, twins, known, (m) => report(`sequence.${k}.match`, m), collect(`sequence.${k}.match`));
        for (const [name, source] of Object.entries(step.capture ?? {})) {
          if (!CAPTURE_SOURCE.test(source)) {
            report(
              `sequence.${k}.capture.${name}`,
              `Capture '${name}' reads '${source}', which is not a capture source (response.body/<pointer>, body/<pointer>, query.<name>, headers.<name>, params.<name>, response.status).`,
            );
          }
          known.add(name);
        }
      }
    } else if ('never' in a) {
      await checkMatcher(a.never, twins, new Set(), (m) => report('never', m), collect('never'));
    } else {
      await checkMatcher(a.match, twins, new Set(), (m) => report('match', m), collect('match'));
    }
  }
  if (patterns.length > 0) {
    const sources = [...new Set(patterns.map((p) => p.source))];
    const verdicts = new Map(sources.map((s, i) => [s, i]));
    const found = await checkPatterns(sources);
    for (const p of patterns) {
      const problem = found[verdicts.get(p.source)!];
      if (problem) problems.push({ index: p.index, at: p.at, message: `${p.where}: the pattern ${JSON.stringify(clip(p.source))} cannot be used: ${problem}` });
    }
    problems.sort((a, b) => a.index - b.index);
  }
  return problems;
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

async function checkMatcher(
  m: Matcher,
  twins: string[],
  known: Set<string>,
  report: (message: string) => void,
  pattern: (where: string, source: string) => void,
): Promise<void> {
  const op = (where: string, value: unknown) => {
    const problem = checkOperator(value, where, known);
    if (problem) report(problem);
    else for (const source of patternsIn(value)) pattern(where, source);
  };
  if (m.twin !== undefined) op('twin', m.twin);
  if (m.method !== undefined) op('method', m.method);
  if (m.path !== undefined && typeof m.path !== 'string' && !(Array.isArray(m.path) && m.path.length > 0 && m.path.every((p) => typeof p === 'string'))) {
    if (isOperatorObject(m.path)) op('path', m.path);
    else report('path must be a path or template, a non-empty list of them, or an operator object.');
  }
  for (const [k, v] of Object.entries(m.params ?? {})) op(`params.${k}`, v);
  for (const [k, v] of Object.entries(m.query ?? {})) op(`query.${k}`, v);
  for (const [k, v] of Object.entries(m.headers ?? {})) op(`headers.${k}`, v);
  for (const [k, v] of Object.entries(m.body ?? {})) {
    if (!k.startsWith('/')) report(`body key '${k}' is not a JSON Pointer; write '/${k}'.`);
    op(`body ${k}`, v);
  }
  for (const [k, v] of Object.entries(m.response?.body ?? {})) {
    if (!k.startsWith('/')) report(`response.body key '${k}' is not a JSON Pointer; write '/${k}'.`);
    op(`response.body ${k}`, v);
  }
  if (m.response?.status !== undefined) {
    const s = m.response.status;
    const valid = (x: unknown): boolean =>
      (typeof x === 'number' && Number.isInteger(x) && x >= 100 && x <= 599) || (typeof x === 'string' && /^[1-5]xx$/i.test(x));
    if (Array.isArray(s)) {
      if (s.length === 0 || !s.every(valid)) report('response.status list needs status codes (100–599) or classes like 2xx.');
    } else if (typeof s === 'object' && s !== null) op('response.status', s);
    else if (!valid(s)) report(`response.status ${JSON.stringify(s)} is not a status code (100–599) or a class like 2xx.`);
  }

  // Which twins this matcher can hit: its literal twin, or every twin of the test.
  const twinNames = typeof m.twin === 'string' ? [m.twin] : twins;
  if (typeof m.twin === 'string' && !twins.includes(m.twin)) {
    report(
      (TWIN_SLUGS as readonly string[]).includes(m.twin)
        ? `It names the ${m.twin} twin, which is not among this test's twins (${twins.join(', ')}).`
        : `It names the twin '${m.twin}', which does not exist; twins are ${TWIN_SLUGS.join(', ')}.`,
    );
    return;
  }
  const method = typeof m.method === 'string' ? m.method.toUpperCase() : undefined;
  if (method && !['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].includes(method)) {
    report(`Method '${m.method}' is not an HTTP method.`);
    return;
  }
  const paths = typeof m.path === 'string' ? [m.path] : Array.isArray(m.path) ? (m.path as string[]) : [];
  for (const path of paths) {
    if (!path.startsWith('/')) {
      report(`Path '${path}' must start with '/'.`);
      continue;
    }
    let served = false;
    let documented: { body?: Set<string>; query?: Set<string> } | undefined;
    let checkedAny = false;
    for (const slug of twinNames) {
      const surface = await twinSurface(slug);
      if (!surface) continue;
      checkedAny = true;
      const routes = routesFor(surface, method, path);
      if (routes.length === 0) continue;
      served = true;
      for (const r of routes) {
        const f = surface.fields(r.method, r.path);
        if (f) documented = mergeFields(documented, f);
      }
    }
    if (checkedAny && !served) {
      report(`${method ?? 'No method'} ${path} is not an operation the ${twinNames.join(' or ')} twin serves.`);
      continue;
    }
    if (!documented) continue;
    if (documented.body) {
      for (const pointer of Object.keys(m.body ?? {})) {
        const top = pointer.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
        if (top && !documented.body.has(top))
          report(
            `Body field '${top}' is not a parameter of ${method ?? ''} ${path}; it takes ${[...documented.body].slice(0, 25).join(', ')}.`.replace('  ', ' '),
          );
      }
    }
    if (documented.query) {
      for (const name of Object.keys(m.query ?? {})) {
        const top = name.replace(/\[.*$/, '');
        if (!documented.query.has(top))
          report(`Query parameter '${top}' is not a parameter of ${method ?? ''} ${path}; it takes ${[...documented.query].join(', ')}.`.replace('  ', ' '));
      }
    }
  }
}

function mergeFields(a: { body?: Set<string>; query?: Set<string> } | undefined, b: { body?: Set<string>; query?: Set<string> }) {
  if (!a) return b;
  return {
    body: a.body && b.body ? new Set([...a.body, ...b.body]) : (a.body ?? b.body),
    query: a.query && b.query ? new Set([...a.query, ...b.query]) : (a.query ?? b.query),
  };
}
