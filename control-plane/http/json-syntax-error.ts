// Where a JSON text stops being JSON, as Python's json module says it (what FastAPI answers in a
// `json_invalid` entry: `loc: ["body", pos]`, `ctx.error` = the decoder's message; docs/decisions.md §2).
// V8's messages give no position for most mistakes ("Unexpected token 'x', "…" is not valid JSON"),
// count UTF-16 units, and quote the input (which may itself contain "position 3"), so the position
// is found here, by scanning the text with the grammar Python's decoder uses. Called only after
// JSON.parse failed; nesting is bounded by the caller's depth check.

export interface JsonSyntaxError {
  /** Offset in characters (code points) from the start of the text, as Python counts. */
  pos: number;
  msg: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const WS = /[ \t\n\r]*/y;
// Python's NUMBER_RE: an integer part, then an optional fraction and exponent.
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
// Python's decoder also reads NaN and ±Infinity; JSON (and this service) does not, so they are
// reported where Python would report any other bad value.
const CONSTANTS = ['null', 'true', 'false'];

function skip(text: string, i: number): number {
  WS.lastIndex = i;
  WS.exec(text);
  return WS.lastIndex;
}

/** The end of the string whose opening quote is at `start`. */
function scanString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    if (i >= text.length) throw new Stop(start, 'Unterminated string starting at');
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) throw new Stop(i, 'Invalid control character at');
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === undefined) throw new Stop(start, 'Unterminated string starting at');
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i + 1, 'Invalid \\uXXXX escape');
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(e)) throw new Stop(i, 'Invalid \\escape');
      i += 2;
      continue;
    }
    i++;
  }
}

/** The end of the value starting at `i` (whitespace before it already skipped). */
function scanValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return scanString(text, i);
  if (c === '{') return scanObject(text, i + 1);
  if (c === '[') return scanArray(text, i + 1);
  for (const k of CONSTANTS) if (text.startsWith(k, i)) return i + k.length;
  NUMBER.lastIndex = i;
  if (NUMBER.exec(text)) return NUMBER.lastIndex;
  throw new Stop(i, 'Expecting value');
}

function scanObject(text: string, i: number): number {
  i = skip(text, i);
  if (text[i] === '}') return i + 1;
  for (;;) {
    if (text[i] !== '"') throw new Stop(i, 'Expecting property name enclosed in double quotes');
    i = skip(text, scanString(text, i));
    if (text[i] !== ':') throw new Stop(i, "Expecting ':' delimiter");
    i = skip(text, scanValue(text, skip(text, i + 1)));
    if (text[i] === '}') return i + 1;
    if (text[i] !== ',') throw new Stop(i, "Expecting ',' delimiter");
    i = skip(text, i + 1);
  }
}

function scanArray(text: string, i: number): number {
  i = skip(text, i);
  if (text[i] === ']') return i + 1;
  for (;;) {
    i = skip(text, scanValue(text, i));
    if (text[i] === ']') return i + 1;
    if (text[i] !== ',') throw new Stop(i, "Expecting ',' delimiter");
    i = skip(text, i + 1);
  }
}

/** Code points in text[0, units): Python indexes strings by character, JavaScript by UTF-16 unit. */
function codePointsBefore(text: string, units: number): number {
  let n = 0;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= units) n++;
    else {
      n++;
      i++;
    }
  }
  return n;
}

/** The first syntax error of `text`, or undefined when Python's decoder would read it. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    const end = skip(text, scanValue(text, skip(text, 0)));
    if (end !== text.length) throw new Stop(end, 'Extra data');
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { pos: codePointsBefore(text, e.at), msg: e.reason };
  }
}
