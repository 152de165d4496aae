// JSON bodies: malformed JSON answers 422 `json_invalid` with the character offset, as FastAPI does.
// Bodies are read as all request data is (twin-runtime/safe-input.ts): `__proto__` and
// `constructor.prototype` keys are dropped at any depth, and nesting past the limit is json_invalid
// at the offset where it passed it.

import type { FastifyRequest } from 'fastify';
import { InputRefusal, parseJson } from '../../twin-runtime/safe-input.js';
import { RequestValidationError } from './validation.js';

export function parseJsonBody(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    done(null, parseJson(text));
  } catch (e) {
    if (e instanceof InputRefusal) {
      const offset = e.offset ?? 0;
      done(
        new RequestValidationError([
          { type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error: 'Maximum nesting depth exceeded' } },
        ]),
      );
      return;
    }
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
