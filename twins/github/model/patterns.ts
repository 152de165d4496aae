// GitHub's ref and path patterns (workflow `branches:` filters, ruleset `ref_name` conditions):
// `*` within a segment, `**` across segments, `?` one character. Compiled with RE2 (linear time),
// so a pattern from a workflow file or a ruleset cannot stall the twin, and kept per pattern.

import { re2js, type RE2JS } from '../../../twin-runtime/re2.js';

const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 512;
/** Longest pattern read (GitHub's own ref names stop at 255 bytes). */
const MAX_PATTERN = 1024;

function compile(pattern: string): RE2JS {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '.';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const RE2 = re2js();
  return RE2.compile(`^${re}$`, RE2.DOTALL);
}

/** Whether `value` matches the glob `pattern` (a pattern past 1,024 characters matches nothing). */
export function globMatches(pattern: string, value: string): boolean {
  if (pattern.length > MAX_PATTERN) return false;
  let re = compiled.get(pattern);
  if (!re) {
    re = compile(pattern);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re.matches(value);
}
