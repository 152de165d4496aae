// JSON bodies: malformed JSON answers 422 `json_invalid` with the character offset, as FastAPI does.
// A body nested deeper than MAX_JSON_DEPTH is refused the same way before it is parsed: deeper
// documents overflowed the stack of the validator and of the 422 body's serializer.

import type { FastifyRequest } from 'fastify';
import { RequestValidationError } from './validation.js';

export const MAX_JSON_DEPTH = 64;

/** The offset where nesting first passes `max` levels, or -1 (strings are skipped). */
export function depthExceededAt(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

export function parseJsonBody(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return done(null, undefined);
  const tooDeep = depthExceededAt(text, MAX_JSON_DEPTH);
  if (tooDeep !== -1) {
    return done(
      new RequestValidationError([
        { type: 'json_invalid', loc: ['body', tooDeep], msg: 'JSON decode error', input: {}, ctx: { error: `Nesting deeper than ${MAX_JSON_DEPTH} levels` } },
      ]),
    );
  }
  try {
    done(null, JSON.parse(text));
  } catch (e) {
    const message = (e as Error).message;
    const m = /position (\d+)/.exec(message);
    const offset = m ? Number(m[1]) : text.length;
    done(
      new RequestValidationError([
        { type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error: jsonReason(text, offset) } },
      ]),
    );
  }
}

/** Python's json module wording for the most common failures. */
function jsonReason(text: string, offset: number): string {
  if (offset >= text.length) return 'Expecting value';
  const ch = text[offset];
  const before = text.slice(0, offset).trimEnd();
  if ((before.endsWith('{') || before.endsWith(',')) && ch !== '"') return 'Expecting property name enclosed in double quotes';
  if (ch === '}' || ch === ']') return 'Expecting value';
  return 'Expecting value';
}
