// The `matches` operator's regular expressions: RE2 syntax run by re2js, whose time is linear in the
// text whatever the pattern (no backtracking), so no stored pattern can make a match exponential.
// Linear is not free: a large program over a 64 KiB body still costs, which is why patterns are
// bounded here (characters, compiled instructions) and judged in a worker with a CPU budget
// (judges.ts). Compiling itself costs time in proportion to the program (~1 s for 60,000
// instructions), so compiles happen in that worker too, never on the API's thread.

import { RE2JS, RE2JSSyntaxException } from 're2js';

/** Characters of one pattern. */
export const MAX_PATTERN_CHARS = 10_000;
/** Instructions of one compiled pattern (RE2's `a{1000}` is 1,000; `[a-z]{0,100}` about 200). */
export const MAX_PATTERN_PROGRAM = 20_000;

/** A pattern that cannot be used, with the sentence saying why. */
export class PatternError extends Error {
  override name = 'PatternError';
}

/** The sentence for RE2's syntax error, in the matcher language's words where it has them. */
function sentence(e: RE2JSSyntaxException): string {
  const what = e.getDescription();
  const at = e.getPattern() ?? '';
  if (what === 'invalid escape sequence' && /^\\[1-9]/.test(at)) return 'Backreferences are not supported.';
  if (/^\(\?(=|!|<=|<!)/.test(at)) return 'Lookaround is not supported.';
  if (what === 'invalid nested repetition operator' && /[*+?}]\+$/.test(at)) return 'Possessive quantifiers are not supported.';
  if (what === 'invalid repeat count') return `Repetition counts above 1000 are not supported (\`${at}\`).`;
  const text = what.charAt(0).toUpperCase() + what.slice(1);
  return at ? `${text}: \`${at}\`.` : `${text}.`;
}

/** Compile a pattern, or throw PatternError with a sentence. */
export function compilePattern(source: string): RE2JS {
  if (source.length > MAX_PATTERN_CHARS) throw new PatternError(`The pattern has ${source.length} characters; at most ${MAX_PATTERN_CHARS} are supported.`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    if (e instanceof RE2JSSyntaxException) throw new PatternError(sentence(e));
    throw new PatternError(`The pattern cannot be compiled: ${(e as Error).message}`);
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM) {
    throw new PatternError(`The pattern is too large: it compiles to ${size} instructions, and at most ${MAX_PATTERN_PROGRAM} are supported.`);
  }
  return re;
}

/** Why the pattern cannot be used, or undefined when it can. */
export function patternProblem(source: string): string | undefined {
  try {
    compilePattern(source);
    return undefined;
  } catch (e) {
    if (e instanceof PatternError) return e.message;
    throw e;
  }
}

const compiled = new Map<string, RE2JS>();

/** A pattern compiled once per thread (a matcher's checks run over every request of a window). */
export function pattern(source: string): RE2JS {
  let re = compiled.get(source);
  if (!re) {
    re = compilePattern(source);
    if (compiled.size >= 256) compiled.delete(compiled.keys().next().value!);
    compiled.set(source, re);
  }
  return re;
}
