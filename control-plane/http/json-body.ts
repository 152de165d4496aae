// JSON bodies: malformed JSON answers 422 `json_invalid` with the character offset, as FastAPI does.

import type { FastifyRequest } from 'fastify';
import { RequestValidationError } from './validation.js';

export function parseJsonBody(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return done(null, undefined);
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
