// JQL, the common subset, parsed for real: clauses `field op value` with `=`, `!=`, `~`, `!~`,
// `>`, `>=`, `<`, `<=`, `IN (…)`, `NOT IN (…)`, `IS [NOT] EMPTY|NULL`; `AND`, `OR`, `NOT`,
// parentheses; `currentUser()`, `now()`, `startOfDay()` and relative dates (`-7d`, `-2w`, `4h`);
// `ORDER BY field [ASC|DESC], …`; bare words as free text (`login` is `text ~ "login"`). Errors
// answer as Jira does (400, "Error in the JQL Query: …").

import { JiraError } from '../wire/errors.js';

type Token = { kind: 'word' | 'string' | 'op' | 'punct'; text: string; pos: number };

export type Operand = { kind: 'value'; text: string; quoted: boolean } | { kind: 'function'; name: string; args: string[] } | { kind: 'empty' };

export type Expr = { kind: 'and' | 'or'; parts: Expr[] } | { kind: 'not'; expr: Expr } | { kind: 'clause'; field: string; op: string; values: Operand[] };

export interface Jql {
  where: Expr | null;
  orderBy: { field: string; direction: 'ASC' | 'DESC' }[];
}

const MAX_JQL = 10_000;
const MAX_DEPTH = 40;

function jqlError(message: string): JiraError {
  return new JiraError(400, [`Error in the JQL Query: ${message}`]);
}

function tokenize(text: string): Token[] {
  if (text.length > MAX_JQL) throw jqlError(`The query is too long (at most ${MAX_JQL} characters).`);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      let out = '';
      while (j < text.length && text[j] !== ch) {
        if (text[j] === '\\' && j + 1 < text.length) {
          out += text[j + 1];
          j += 2;
          continue;
        }
        out += text[j++];
      }
      if (j >= text.length) throw jqlError(`The quoted string starting at character ${i + 1} is not closed.`);
      tokens.push({ kind: 'string', text: out, pos: i });
      i = j + 1;
      continue;
    }
    const op = /^(!=|!~|>=|<=|=|~|>|<)/.exec(text.slice(i));
    if (op) {
      tokens.push({ kind: 'op', text: op[1]!, pos: i });
      i += op[1]!.length;
      continue;
    }
    if ('(),'.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch, pos: i });
      i++;
      continue;
    }
    const word = /^[^\s()=!~<>,"']+/.exec(text.slice(i));
    if (!word) throw jqlError(`The character '${ch}' at position ${i + 1} is not expected.`);
    tokens.push({ kind: 'word', text: word[0], pos: i });
    i += word[0].length;
  }
  return tokens;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }

  private isWord(t: Token | undefined, w: string): boolean {
    return !!t && t.kind === 'word' && t.text.toUpperCase() === w;
  }

  private expect(what: string): never {
    const t = this.peek();
    throw jqlError(t ? `Expecting ${what} but got '${t.text}'.` : `Expecting ${what} but reached the end of the query.`);
  }

  parse(): Jql {
    let where: Expr | null = null;
    if (this.peek() && !(this.isWord(this.peek(), 'ORDER') && this.isWord(this.peek(1), 'BY'))) where = this.or(0);
    const orderBy: Jql['orderBy'] = [];
    if (this.isWord(this.peek(), 'ORDER')) {
      this.i++;
      if (!this.isWord(this.peek(), 'BY')) this.expect("'by'");
      this.i++;
      do {
        if (this.peek()?.kind === 'punct' && this.peek()!.text === ',') this.i++;
        const f = this.peek();
        if (!f || (f.kind !== 'word' && f.kind !== 'string')) this.expect('a field name');
        this.i++;
        let direction: 'ASC' | 'DESC' = f.text.toLowerCase() === 'created' || f.text.toLowerCase() === 'updated' ? 'DESC' : 'ASC';
        if (this.isWord(this.peek(), 'ASC') || this.isWord(this.peek(), 'DESC')) direction = this.tokens[this.i++]!.text.toUpperCase() as 'ASC' | 'DESC';
        orderBy.push({ field: f.text.toLowerCase(), direction });
      } while (this.peek()?.kind === 'punct' && this.peek()!.text === ',');
    }
    if (this.peek()) this.expect("'AND', 'OR' or 'ORDER BY'");
    return { where, orderBy };
  }

  private or(depth: number): Expr {
    const parts = [this.and(depth)];
    while (this.isWord(this.peek(), 'OR')) {
      this.i++;
      parts.push(this.and(depth));
    }
    return parts.length === 1 ? parts[0]! : { kind: 'or', parts };
  }

  private and(depth: number): Expr {
    const parts = [this.not(depth)];
    while (this.isWord(this.peek(), 'AND')) {
      this.i++;
      parts.push(this.not(depth));
    }
    return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
  }

  private not(depth: number): Expr {
    if (depth > MAX_DEPTH) throw jqlError('The query nests too deeply.');
    if (this.isWord(this.peek(), 'NOT')) {
      this.i++;
      return { kind: 'not', expr: this.not(depth + 1) };
    }
    if (this.peek()?.kind === 'punct' && this.peek()!.text === '(') {
      this.i++;
      const inner = this.or(depth + 1);
      if (!(this.peek()?.kind === 'punct' && this.peek()!.text === ')')) this.expect("')'");
      this.i++;
      return inner;
    }
    return this.clause();
  }

  private clause(): Expr {
    const f = this.peek();
    if (!f || (f.kind !== 'word' && f.kind !== 'string')) this.expect('a field name');
    this.i++;
    if (this.atClauseEnd()) return this.freeText(f);
    const field = f.text.toLowerCase();
    const t = this.peek();
    let op: string;
    if (t?.kind === 'op') {
      op = t.text;
      this.i++;
    } else if (this.isWord(t, 'IN')) {
      op = 'in';
      this.i++;
    } else if (this.isWord(t, 'NOT') && this.isWord(this.peek(1), 'IN')) {
      op = 'not in';
      this.i += 2;
    } else if (this.isWord(t, 'IS') && this.isWord(this.peek(1), 'NOT')) {
      op = 'is not';
      this.i += 2;
    } else if (this.isWord(t, 'IS')) {
      op = 'is';
      this.i++;
    } else this.expect("an operator ('=', '!=', '~', 'IN', 'IS'…)");
    if (op === 'in' || op === 'not in') {
      if (!(this.peek()?.kind === 'punct' && this.peek()!.text === '(')) this.expect("'('");
      this.i++;
      const values: Operand[] = [];
      while (!(this.peek()?.kind === 'punct' && this.peek()!.text === ')')) {
        values.push(this.operand());
        if (this.peek()?.kind === 'punct' && this.peek()!.text === ',') this.i++;
        else if (!(this.peek()?.kind === 'punct' && this.peek()!.text === ')')) this.expect("',' or ')'");
      }
      this.i++;
      return { kind: 'clause', field, op, values };
    }
    return { kind: 'clause', field, op, values: [this.operand()] };
  }

  /** Nothing after a term but the end, `AND`, `OR`, `)`, `ORDER BY` or another bare word: the term is free text. */
  private atClauseEnd(): boolean {
    const t = this.peek();
    if (!t) return true;
    if (t.kind === 'punct') return t.text === ')';
    if (t.kind === 'op') return false;
    if (t.kind === 'string') return true;
    const w = t.text.toUpperCase();
    if (w === 'AND' || w === 'OR' || (w === 'ORDER' && this.isWord(this.peek(1), 'BY'))) return true;
    return w !== 'IN' && w !== 'NOT' && w !== 'IS';
  }

  /**
   * Bare words (`login page`, `"safari crash"`) search the text of issues as Jira's free-text
   * search does: `text ~ "login page"`.
   */
  private freeText(first: Token): Expr {
    const words = [first.text];
    while (this.peek() && (this.peek()!.kind === 'string' || this.peek()!.kind === 'word') && !this.isKeyword(this.peek()!)) {
      words.push(this.tokens[this.i++]!.text);
    }
    return { kind: 'clause', field: 'text', op: '~', values: [{ kind: 'value', text: words.join(' '), quoted: true }] };
  }

  private isKeyword(t: Token): boolean {
    if (t.kind !== 'word') return false;
    const w = t.text.toUpperCase();
    return w === 'AND' || w === 'OR' || w === 'NOT' || w === 'IN' || w === 'IS' || (w === 'ORDER' && this.isWord(this.peek(1), 'BY'));
  }

  private operand(): Operand {
    const t = this.peek();
    if (!t) this.expect('a value');
    if (t.kind === 'string') {
      this.i++;
      return { kind: 'value', text: t.text, quoted: true };
    }
    if (t.kind !== 'word') this.expect('a value');
    this.i++;
    if (t.text.toUpperCase() === 'EMPTY' || t.text.toUpperCase() === 'NULL') return { kind: 'empty' };
    if (this.peek()?.kind === 'punct' && this.peek()!.text === '(') {
      this.i++;
      const args: string[] = [];
      while (!(this.peek()?.kind === 'punct' && this.peek()!.text === ')')) {
        const a = this.peek();
        if (!a) this.expect("')'");
        args.push(a.text);
        this.i++;
        if (this.peek()?.kind === 'punct' && this.peek()!.text === ',') this.i++;
      }
      this.i++;
      return { kind: 'function', name: t.text.toLowerCase(), args };
    }
    return { kind: 'value', text: t.text, quoted: false };
  }
}

export function parseJql(text: string): Jql {
  return new Parser(tokenize(text)).parse();
}

/** What the evaluator knows of one issue field: its comparable values (empty list: EMPTY). */
export interface JqlSubject {
  /** Values a field has; undefined when the field is unknown. */
  values(field: string): { values: (string | number)[]; kind: 'text' | 'id' | 'date' } | undefined;
  viewerAccountId: string;
  now: number;
}

const RELATIVE = /^([-+]?)(\d+)([wdhm])$/i;
const UNIT_MS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000 };

function operandValue(o: Operand, s: JqlSubject, kind: 'text' | 'id' | 'date'): string | number | null {
  if (o.kind === 'empty') return null;
  if (o.kind === 'function') {
    switch (o.name) {
      case 'currentuser':
        return s.viewerAccountId;
      case 'now':
        return s.now;
      case 'startofday':
        return Date.UTC(new Date(s.now).getUTCFullYear(), new Date(s.now).getUTCMonth(), new Date(s.now).getUTCDate());
      default:
        throw jqlError(`Unable to find JQL function '${o.name}()'.`);
    }
  }
  if (kind === 'date') {
    const rel = RELATIVE.exec(o.text);
    if (rel) return s.now + (rel[1] === '-' ? -1 : 1) * Number(rel[2]) * UNIT_MS[rel[3]!.toLowerCase()]!;
    const t = Date.parse(
      o.text.replace(/^(\d{4})[/-](\d{2})[/-](\d{2})(?: (\d{2}):(\d{2}))?$/, (_m, y, mo, d, h, mi) => `${y}-${mo}-${d}T${h ?? '00'}:${mi ?? '00'}:00Z`),
    );
    if (!Number.isFinite(t))
      throw jqlError(
        `Date value '${o.text}' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.`,
      );
    return t;
  }
  return o.text;
}

function same(a: string | number, b: string | number | null): boolean {
  if (b === null) return false;
  return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function containsWords(values: (string | number)[], phrase: string): boolean {
  const hay = values.join(' ').toLowerCase();
  return phrase
    .toLowerCase()
    .replace(/[*?]/g, '')
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

export function evaluate(expr: Expr, s: JqlSubject): boolean {
  if (expr.kind === 'not') return !evaluate(expr.expr, s);
  if (expr.kind !== 'clause') return expr.kind === 'and' ? expr.parts.every((p) => evaluate(p, s)) : expr.parts.some((p) => evaluate(p, s));
  const field = s.values(expr.field);
  if (!field) throw jqlError(`Field '${expr.field}' does not exist or you do not have permission to view it.`);
  const { values, kind } = field;
  const wanted = expr.values.map((o) => operandValue(o, s, kind));
  const empty = values.length === 0;
  switch (expr.op) {
    case '=':
      return wanted[0] === null ? empty : values.some((v) => same(v, wanted[0]!));
    case '!=':
      return wanted[0] === null ? !empty : !empty && !values.some((v) => same(v, wanted[0]!));
    case 'in':
      return values.some((v) => wanted.some((w) => same(v, w))) || (empty && wanted.includes(null));
    case 'not in':
      return !empty && !values.some((v) => wanted.some((w) => same(v, w)));
    case 'is':
      if (wanted[0] !== null) throw jqlError("The operator 'is' only supports EMPTY or NULL.");
      return empty;
    case 'is not':
      if (wanted[0] !== null) throw jqlError("The operator 'is not' only supports EMPTY or NULL.");
      return !empty;
    case '~':
      if (kind !== 'text') throw jqlError(`The operator '~' is not supported by the '${expr.field}' field.`);
      return containsWords(values, String(wanted[0] ?? ''));
    case '!~':
      if (kind !== 'text') throw jqlError(`The operator '!~' is not supported by the '${expr.field}' field.`);
      return !containsWords(values, String(wanted[0] ?? ''));
    case '>':
    case '>=':
    case '<':
    case '<=': {
      const w = wanted[0];
      if (w === null || w === undefined) return false;
      return values.some((v) => (expr.op === '>' ? v > w : expr.op === '>=' ? v >= w : expr.op === '<' ? v < w : v <= w));
    }
    default:
      throw jqlError(`The operator '${expr.op}' is not supported.`);
  }
}
