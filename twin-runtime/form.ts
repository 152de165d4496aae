// Bracket-notation form decoding (`a[b][0][c]=1&e[]=x`), the way Stripe and Slack clients encode
// nested parameters: numeric and empty brackets build arrays (sparse indices are compacted, as
// Stripe treats them), other brackets build objects, and the last of two equal keys wins.
//
// Decoded by qs with its limits on: a form that passes one (too many pairs, too long or too deep a
// name, too large an index) is refused with an InputRefusal naming the parameter, never turned
// into something else. Pairs whose name walks through `__proto__`, `constructor` or `prototype`
// are dropped (qs's allowPrototypes: false already drops every other name Object.prototype has),
// so the tree holds only plain objects, arrays and strings under names no prototype answers to.

import { createRequire } from 'node:module';
import { loadOnce } from './load-once.js';
import { INPUT_LIMITS, InputRefusal, isForbiddenKey, paramForRefusal, type InputLimits, type InputPart } from './safe-input.js';

// qs and its helpers (get-intrinsic, side-channel) page in ~10 MiB of the Node binary and ~15 ms
// at import: loaded with the first form a twin decodes, not at its start (scripts/bench/twin-start.ts).
const qs = loadOnce(() => createRequire(import.meta.url)('qs') as typeof import('qs'));

type Tree = Record<string, unknown>;

/** A name segment (before the first bracket, or inside one) that is a forbidden key. */
const FORBIDDEN_SEGMENT = /(?:^|\[)(?:__proto__|constructor|prototype)(?:\]|\[|$)/;
const INDEX_SEGMENT = /\[(\d+)\]/g;

function bracketLevels(name: string): number {
  let n = 0;
  for (let at = name.indexOf('['); at !== -1; at = name.indexOf('[', at + 1)) n++;
  return n;
}

/**
 * Check one decoded parameter name against the limits (throws the refusal) and say whether qs may
 * keep it: false for a name that walks through a forbidden key.
 */
function acceptName(name: string, part: InputPart, limits: InputLimits): boolean {
  if (name.length > limits.maxKeyLength) throw new InputRefusal('key_too_long', part, limits.maxKeyLength, paramForRefusal(name));
  if (!name.includes('[')) return !isForbiddenKey(name);
  if (bracketLevels(name) > limits.maxKeyDepth) throw new InputRefusal('nesting_too_deep', part, limits.maxKeyDepth, paramForRefusal(name));
  for (const m of name.matchAll(INDEX_SEGMENT)) {
    const digits = m[1]!;
    if (digits.length > String(limits.maxArrayIndex).length || Number(digits) > limits.maxArrayIndex) {
      throw new InputRefusal('index_too_large', part, limits.maxArrayIndex, paramForRefusal(name.slice(0, m.index! + m[0].length)));
    }
  }
  return !FORBIDDEN_SEGMENT.test(name);
}

/** What qs throws when one of its own limits trips (ours trip first; this is the backstop). */
function refusalFromQs(e: RangeError, part: InputPart, limits: InputLimits): InputRefusal {
  if (e.message.startsWith('Parameter limit')) return new InputRefusal('too_many_parameters', part, limits.maxParameters);
  if (e.message.startsWith('Array limit')) return new InputRefusal('index_too_large', part, limits.maxArrayIndex);
  return new InputRefusal('nesting_too_deep', part, limits.maxKeyDepth);
}

/**
 * Decode `application/x-www-form-urlencoded` text (a body or a query string without its `?`) into
 * a nested tree. Throws InputRefusal when the text passes a limit.
 */
export function parseBracketForm(text: string, part: InputPart = 'body', limits: InputLimits = INPUT_LIMITS): Tree {
  if (!text) return {};
  // An encoded character takes at most three; a longer raw name cannot decode short enough.
  const rawKeyMax = limits.maxKeyLength * 3;
  try {
    return qs().parse(text, {
      allowPrototypes: false,
      plainObjects: false,
      parameterLimit: limits.maxParameters,
      depth: limits.maxKeyDepth,
      strictDepth: true,
      arrayLimit: limits.maxArrayIndex + 1,
      throwOnLimitExceeded: true,
      duplicates: 'last',
      allowDots: false,
      comma: false,
      decoder(str, defaultDecoder, charset, type) {
        if (type !== 'key') return defaultDecoder(str, defaultDecoder, charset);
        if (str.length > rawKeyMax) throw new InputRefusal('key_too_long', part, limits.maxKeyLength, paramForRefusal(str));
        const name = defaultDecoder(str, defaultDecoder, charset);
        // qs skips a pair whose name decodes to null.
        return acceptName(name, part, limits) ? name : null;
      },
    }) as Tree;
  } catch (e) {
    if (e instanceof RangeError) throw refusalFromQs(e, part, limits);
    throw e;
  }
}
