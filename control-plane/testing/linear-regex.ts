// The `matches` operator's regular expressions, run by a Thompson NFA: time linear in the input
// whatever the pattern, so a stored test can never hang the evaluator (no backtracking engine).
//
// Supported: literals, `.`, classes `[a-z_]` / `[^…]`, escapes `\d \w \s \D \W \S` and escaped
// punctuation, anchors `^ $`, groups `( )` and `(?: )` (grouping only; nothing is captured),
// alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (m ≤ 100), and a leading `(?i)` for
// case-insensitive matching. Not supported (refused with a sentence): backreferences, lookaround,
// lazy or possessive quantifiers. Search is unanchored unless `^`/`$` say otherwise.

export class RegexSyntaxError extends Error {}

type CharTest = (c: string) => boolean;

type Node =
  | { kind: 'char'; test: CharTest }
  | { kind: 'bol' }
  | { kind: 'eol' }
  | { kind: 'concat'; parts: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number | null }
  | { kind: 'empty' };

const MAX_REPEAT = 100;
const MAX_STATES = 20_000;

class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly fold: boolean,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) throw new RegexSyntaxError(`Unbalanced ')' at position ${this.i} of the pattern.`);
    return node;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Node {
    const options = [this.concatenation()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.concatenation());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private concatenation(): Node {
    const parts: Node[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') parts.push(this.quantified());
    if (parts.length === 0) return { kind: 'empty' };
    return parts.length === 1 ? parts[0]! : { kind: 'concat', parts };
  }

  private quantified(): Node {
    let node = this.atom();
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number | null;
      if (c === '*') [min, max] = [0, null];
      else if (c === '+') [min, max] = [1, null];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i))) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))!;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]);
        if (min > MAX_REPEAT || (max !== null && max > MAX_REPEAT)) throw new RegexSyntaxError(`Repetition counts above ${MAX_REPEAT} are not supported.`);
        if (max !== null && max < min) throw new RegexSyntaxError(`Repetition {${min},${max}} has its bounds the wrong way round.`);
        this.i += m[0].length - 1;
      } else return node;
      this.i++;
      if (node.kind === 'bol' || node.kind === 'eol') throw new RegexSyntaxError('An anchor cannot be repeated.');
      if (this.peek() === '?' || this.peek() === '+') throw new RegexSyntaxError('Lazy and possessive quantifiers are not supported.');
      node = { kind: 'repeat', node, min, max };
    }
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    switch (c) {
      case '(': {
        if (this.src.startsWith('?:', this.i)) this.i += 2;
        else if (this.peek() === '?') throw new RegexSyntaxError('Lookaround and named groups are not supported.');
        const inner = this.alternation();
        if (this.peek() !== ')') throw new RegexSyntaxError("Missing ')' in the pattern.");
        this.i++;
        return inner;
      }
      case ')':
        throw new RegexSyntaxError(`Unbalanced ')' at position ${this.i - 1} of the pattern.`);
      case '^':
        return { kind: 'bol' };
      case '$':
        return { kind: 'eol' };
      case '.':
        return { kind: 'char', test: (x) => x !== '\n' };
      case '[':
        return { kind: 'char', test: this.charClass() };
      case '\\':
        return { kind: 'char', test: this.escape() };
      case '*':
      case '+':
      case '?':
        throw new RegexSyntaxError(`Nothing to repeat before '${c}' at position ${this.i - 1}.`);
      default:
        return { kind: 'char', test: this.literal(c) };
    }
  }

  private literal(c: string): CharTest {
    if (!this.fold) return (x) => x === c;
    const lower = c.toLowerCase();
    return (x) => x.toLowerCase() === lower;
  }

  private escape(): CharTest {
    const c = this.src[this.i++];
    if (c === undefined) throw new RegexSyntaxError('The pattern ends with a lone backslash.');
    const cls = classEscape(c);
    if (cls) return cls;
    if (/[1-9]/.test(c)) throw new RegexSyntaxError('Backreferences are not supported.');
    if (c === 'b' || c === 'B') throw new RegexSyntaxError('Word boundaries (\\b) are not supported.');
    if (c === 'n') return (x) => x === '\n';
    if (c === 't') return (x) => x === '\t';
    if (c === 'r') return (x) => x === '\r';
    return this.literal(c);
  }

  private charClass(): CharTest {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.i++;
    }
    const tests: CharTest[] = [];
    let first = true;
    while (this.i < this.src.length && (this.peek() !== ']' || first)) {
      first = false;
      let c = this.src[this.i++]!;
      if (c === '\\') {
        const e = this.src[this.i++];
        if (e === undefined) break;
        const cls = classEscape(e);
        if (cls) {
          tests.push(cls);
          continue;
        }
        c = e === 'n' ? '\n' : e === 't' ? '\t' : e;
      }
      if (this.peek() === '-' && this.src[this.i + 1] !== undefined && this.src[this.i + 1] !== ']') {
        this.i++;
        let hi = this.src[this.i++]!;
        if (hi === '\\') hi = this.src[this.i++] ?? '\\';
        const [lo, up] = [c, hi];
        if (lo > up) throw new RegexSyntaxError(`Range ${lo}-${up} is out of order.`);
        tests.push(this.fold ? (x) => inRange(x, lo, up) || inRange(x.toLowerCase(), lo, up) || inRange(x.toUpperCase(), lo, up) : (x) => inRange(x, lo, up));
      } else {
        tests.push(this.literal(c));
      }
    }
    if (this.peek() !== ']') throw new RegexSyntaxError("Missing ']' in the pattern.");
    this.i++;
    return negate ? (x) => !tests.some((t) => t(x)) : (x) => tests.some((t) => t(x));
  }
}

function inRange(x: string, lo: string, hi: string): boolean {
  return x >= lo && x <= hi;
}

function classEscape(c: string): CharTest | undefined {
  switch (c) {
    case 'd':
      return (x) => x >= '0' && x <= '9';
    case 'D':
      return (x) => !(x >= '0' && x <= '9');
    case 'w':
      return (x) => /[A-Za-z0-9_]/.test(x);
    case 'W':
      return (x) => !/[A-Za-z0-9_]/.test(x);
    case 's':
      return (x) => /\s/.test(x);
    case 'S':
      return (x) => !/\s/.test(x);
    default:
      return undefined;
  }
}

// NFA: states are char tests, anchors, splits (epsilon to two states) or the accepting state.
type State =
  | { kind: 'char'; test: CharTest; out: number }
  | { kind: 'bol' | 'eol'; out: number }
  | { kind: 'split'; out: number; out2: number }
  | { kind: 'match' };

class Builder {
  readonly states: State[] = [];

  add(s: State): number {
    if (this.states.length >= MAX_STATES) throw new RegexSyntaxError('The pattern is too large.');
    this.states.push(s);
    return this.states.length - 1;
  }

  /** Build `node` so that it continues to `next`; returns its entry state. */
  build(node: Node, next: number): number {
    switch (node.kind) {
      case 'empty':
        return next;
      case 'char':
        return this.add({ kind: 'char', test: node.test, out: next });
      case 'bol':
      case 'eol':
        return this.add({ kind: node.kind, out: next });
      case 'concat': {
        let entry = next;
        for (let k = node.parts.length - 1; k >= 0; k--) entry = this.build(node.parts[k]!, entry);
        return entry;
      }
      case 'alt': {
        let entry = this.build(node.options[node.options.length - 1]!, next);
        for (let k = node.options.length - 2; k >= 0; k--) {
          entry = this.add({ kind: 'split', out: this.build(node.options[k]!, next), out2: entry });
        }
        return entry;
      }
      case 'repeat': {
        let entry = next;
        if (node.max === null) {
          // x* : a split that loops through x back to itself.
          const loop = this.add({ kind: 'split', out: -1, out2: next });
          const body = this.build(node.node, loop);
          (this.states[loop] as { out: number }).out = body;
          entry = loop;
        } else {
          for (let k = node.max; k > node.min; k--) entry = this.add({ kind: 'split', out: this.build(node.node, entry), out2: next });
        }
        for (let k = 0; k < node.min; k++) entry = this.build(node.node, entry);
        return entry;
      }
    }
  }
}

export class LinearRegex {
  private readonly states: State[];
  private readonly start: number;

  constructor(readonly source: string) {
    let pattern = source;
    let fold = false;
    if (pattern.startsWith('(?i)')) {
      fold = true;
      pattern = pattern.slice(4);
    }
    const ast = new Parser(pattern, fold).parse();
    const b = new Builder();
    const match = b.add({ kind: 'match' });
    this.start = b.build(ast, match);
    this.states = b.states;
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    const chars = Array.from(text);
    let current = new Set<number>();
    const generation = new Int32Array(this.states.length).fill(-1);
    let gen = 0;
    const addState = (set: Set<number>, s: number, pos: number): boolean => {
      // Iterative epsilon closure; returns true when the accepting state is reached.
      const stack = [s];
      while (stack.length) {
        const id = stack.pop()!;
        if (generation[id] === gen) continue;
        generation[id] = gen;
        const st = this.states[id]!;
        if (st.kind === 'match') return true;
        if (st.kind === 'split') stack.push(st.out2, st.out);
        else if (st.kind === 'bol') {
          if (pos === 0) stack.push(st.out);
        } else if (st.kind === 'eol') {
          if (pos === chars.length) stack.push(st.out);
        } else set.add(id);
      }
      return false;
    };
    for (let pos = 0; pos <= chars.length; pos++) {
      gen++;
      const next = new Set<number>();
      // Unanchored search: a new thread may start at every position.
      for (const id of current) {
        const st = this.states[id] as { kind: 'char'; test: CharTest; out: number };
        if (st.test(chars[pos - 1]!) && addState(next, st.out, pos)) return true;
      }
      if (addState(next, this.start, pos)) return true;
      current = next;
      if (pos === chars.length) break;
    }
    return false;
  }
}

const cache = new Map<string, LinearRegex>();

/** Compile once per pattern (the evaluator calls this for every request it judges). */
export function linearRegex(pattern: string): LinearRegex {
  let re = cache.get(pattern);
  if (!re) {
    re = new LinearRegex(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}
