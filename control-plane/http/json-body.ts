// JSON bodies: malformed JSON answers 422 `json_invalid` with the character offset and Python's
// message, as FastAPI does (json-syntax-error.ts).
// Bodies are read as all request data is (twin-runtime/safe-input.ts): `__proto__` and
// `constructor.prototype` keys are dropped at any depth, and nesting or keys past the limits are
// json_invalid at the offset where the body passed them (nothing past it is read).

import type { FastifyRequest } from 'fastify';
import { InputRefusal, parseJson } from '../../twin-runtime/safe-input.js';
import { jsonSyntaxError } from './json-syntax-error.js';
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
          {
            type: 'json_invalid',
            loc: ['body', offset],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: e.reason === 'too_many_keys' ? `More than ${e.limit} keys` : 'Maximum nesting depth exceeded' },
          },
        ]),
      );
      return;
    }
    // Offsets count from after a byte order mark, which is not part of the JSON (Starlette's json.loads strips it too).
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const error = jsonSyntaxError(json) ?? { pos: 0, msg: 'Expecting value' };
    done(new RequestValidationError([{ type: 'json_invalid', loc: ['body', error.pos], msg: 'JSON decode error', input: {}, ctx: { error: error.msg } }]));
  }
}
