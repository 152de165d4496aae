// Formula properties: a small evaluator for the common subset of Notion's formula language —
// literals, `prop("Name")`, `+ - * /`, comparisons, `and`/`or`/`not`, and the functions `if`,
// `concat`, `length`, `lower`, `upper`, `round`, `abs`, `empty`, `format`, `toNumber`. The result is
// answered as Notion answers a formula value: `{type: string|number|boolean|date, <type>: value}`.

export type FormulaValue = string | number | boolean | null | { date: string };

type Node =
  | { k: 'lit'; v: FormulaValue }
  | { k: 'prop'; name: string }
  | { k: 'call'; name: string; args: Node[] }
  | { k: 'bin'; op: string; l: Node; r: Node }
  | { k: 'not'; e: Node };

const MAX_LENGTH = 2000;

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}
  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  private eat(t: string): boolean {
    this.ws();
    if (this.s.startsWith(t, this.i)) {
      this.i += t.length;
      return true;
    }
    return false;
  }
  parse(): Node {
    const n = this.or();
    this.ws();
    if (this.i !== this.s.length) throw new Error(`unexpected '${this.s.slice(this.i, this.i + 10)}'`);
    return n;
  }
  private or(): Node {
    let l = this.and();
    while (this.eat('||') || this.eatWord('or')) l = { k: 'bin', op: 'or', l, r: this.and() };
    return l;
  }
  private and(): Node {
    let l = this.cmp();
    while (this.eat('&&') || this.eatWord('and')) l = { k: 'bin', op: 'and', l, r: this.cmp() };
    return l;
  }
  private eatWord(w: string): boolean {
    this.ws();
    const re = new RegExp(`^${w}\\b`);
    if (re.test(this.s.slice(this.i))) {
      this.i += w.length;
      return true;
    }
    return false;
  }
  private cmp(): Node {
    let l = this.add();
    for (;;) {
      const op = ['==', '!=', '>=', '<=', '>', '<'].find((o) => this.eat(o));
      if (!op) return l;
      l = { k: 'bin', op, l, r: this.add() };
    }
  }
  private add(): Node {
    let l = this.mul();
    for (;;) {
      const op = ['+', '-'].find((o) => this.eat(o));
      if (!op) return l;
      l = { k: 'bin', op, l, r: this.mul() };
    }
  }
  private mul(): Node {
    let l = this.unary();
    for (;;) {
      const op = ['*', '/', '%'].find((o) => this.eat(o));
      if (!op) return l;
      l = { k: 'bin', op, l, r: this.unary() };
    }
  }
  private unary(): Node {
    if (this.eat('!') || this.eatWord('not')) return { k: 'not', e: this.unary() };
    if (this.eat('-')) return { k: 'bin', op: '-', l: { k: 'lit', v: 0 }, r: this.unary() };
    return this.atom();
  }
  private atom(): Node {
    this.ws();
    if (this.eat('(')) {
      const n = this.or();
      if (!this.eat(')')) throw new Error('missing )');
      return n;
    }
    const c = this.s[this.i];
    if (c === '"') {
      const end = this.s.indexOf('"', this.i + 1);
      if (end === -1) throw new Error('unterminated string');
      const v = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return { k: 'lit', v };
    }
    const num = /^\d+(?:\.\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return { k: 'lit', v: Number(num[0]) };
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
    if (!word) throw new Error(`unexpected '${c ?? 'end'}'`);
    this.i += word[0].length;
    if (word[0] === 'true' || word[0] === 'false') return { k: 'lit', v: word[0] === 'true' };
    if (!this.eat('(')) throw new Error(`unknown name ${word[0]}`);
    const args: Node[] = [];
    if (!this.eat(')')) {
      do args.push(this.or());
      while (this.eat(','));
      if (!this.eat(')')) throw new Error('missing )');
    }
    if (word[0] === 'prop') {
      const a = args[0];
      if (args.length !== 1 || !a || a.k !== 'lit' || typeof a.v !== 'string') throw new Error('prop() takes a property name');
      return { k: 'prop', name: a.v };
    }
    return { k: 'call', name: word[0], args };
  }
}

/** Parse once to check an expression when the schema is written; throws with a reason. */
export function checkFormula(expression: string): void {
  if (expression.length > MAX_LENGTH) throw new Error('formula too long');
  new Parser(expression).parse();
}

const str = (v: FormulaValue): string => (v === null ? '' : typeof v === 'object' ? v.date : String(v));
const num = (v: FormulaValue): number => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : Number(str(v)) || 0);
const truthy = (v: FormulaValue): boolean => (typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : v !== null && str(v) !== '');

function evaluate(n: Node, prop: (name: string) => FormulaValue): FormulaValue {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'prop':
      return prop(n.name);
    case 'not':
      return !truthy(evaluate(n.e, prop));
    case 'bin': {
      const l = evaluate(n.l, prop);
      if (n.op === 'and') return truthy(l) && truthy(evaluate(n.r, prop));
      if (n.op === 'or') return truthy(l) || truthy(evaluate(n.r, prop));
      const r = evaluate(n.r, prop);
      switch (n.op) {
        case '+':
          return typeof l === 'number' && typeof r === 'number' ? l + r : str(l) + str(r);
        case '-':
          return num(l) - num(r);
        case '*':
          return num(l) * num(r);
        case '/':
          return num(r) === 0 ? null : num(l) / num(r);
        case '%':
          return num(r) === 0 ? null : num(l) % num(r);
        case '==':
          return str(l) === str(r);
        case '!=':
          return str(l) !== str(r);
        default: {
          const [a, b] = typeof l === 'number' || typeof r === 'number' ? [num(l), num(r)] : [str(l), str(r)];
          return n.op === '>' ? a > b : n.op === '<' ? a < b : n.op === '>=' ? a >= b : a <= b;
        }
      }
    }
    case 'call': {
      const a = n.args.map((x) => () => evaluate(x, prop));
      switch (n.name) {
        case 'if':
          return truthy(a[0]?.() ?? null) ? (a[1]?.() ?? null) : (a[2]?.() ?? null);
        case 'concat':
          return a.map((f) => str(f())).join('');
        case 'length':
          return str(a[0]?.() ?? null).length;
        case 'lower':
          return str(a[0]?.() ?? null).toLowerCase();
        case 'upper':
          return str(a[0]?.() ?? null).toUpperCase();
        case 'round':
          return Math.round(num(a[0]?.() ?? null));
        case 'abs':
          return Math.abs(num(a[0]?.() ?? null));
        case 'empty': {
          const v = a[0]?.() ?? null;
          return v === null || v === '' || v === 0 || v === false;
        }
        case 'format':
          return str(a[0]?.() ?? null);
        case 'toNumber':
          return num(a[0]?.() ?? null);
        default:
          throw new Error(`unknown function ${n.name}`);
      }
    }
  }
}

/** The formula's value as a page property answers it. */
export function formulaResult(expression: string, prop: (name: string) => FormulaValue): Record<string, unknown> {
  let v: FormulaValue;
  try {
    v = evaluate(new Parser(expression).parse(), prop);
  } catch {
    v = null;
  }
  if (typeof v === 'number') return { type: 'number', number: Number.isFinite(v) ? v : null };
  if (typeof v === 'boolean') return { type: 'boolean', boolean: v };
  if (v !== null && typeof v === 'object') return { type: 'date', date: { start: v.date, end: null, time_zone: null } };
  return { type: 'string', string: v === null ? null : v };
}
