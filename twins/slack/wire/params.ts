// Reading Web API arguments. The SDK sends form bodies where every value is a string and objects
// (blocks, attachments, metadata) are JSON text; JSON bodies carry real types. Query parameters
// count too, as they do on Slack.

import { parseJson } from '../../../twin-runtime/safe-input.js';
import { invalidArguments, SlackError } from './errors.js';

export class Args {
  constructor(private readonly raw_: Record<string, unknown>) {}

  /** The argument as sent (undefined when absent). */
  raw(name: string): unknown {
    return this.raw_[name];
  }

  /** A string argument; numbers and booleans are rendered, empty strings count as absent. */
  string(name: string): string | undefined {
    const v = this.raw_[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v === '' ? undefined : v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw invalidArguments(`must provide a string for field: ${name}`);
  }

  /** A required string; `code` is the method's own error for a missing value. */
  required(name: string, code?: string): string {
    const v = this.string(name);
    if (v === undefined) throw code ? new SlackError(code) : invalidArguments(`missing required field: ${name}`);
    return v;
  }

  bool(name: string, fallback = false): boolean {
    const v = this.raw_[name];
    if (v === true || v === 'true' || v === '1' || v === 1) return true;
    if (v === false || v === 'false' || v === '0' || v === 0) return false;
    return fallback;
  }

  /** An integer argument; a value that is not one is `invalid_arguments`. */
  int(name: string): number | undefined {
    const v = this.raw_[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isInteger(n)) throw invalidArguments(`must provide an integer for field: ${name}`);
    return n;
  }

  /** A JSON argument (blocks, attachments, metadata), as text or already parsed. */
  json(name: string, badFormatCode = 'invalid_arguments'): unknown {
    const v = this.raw_[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') return v;
    try {
      return parseJson(v);
    } catch {
      throw new SlackError(badFormatCode);
    }
  }

  /** A list given as `a,b,c` or as an array. */
  list(name: string): string[] {
    const v = this.raw_[name];
    if (v === undefined || v === null) return [];
    const items = Array.isArray(v) ? v.map(String) : String(v).split(',');
    return items.map((s) => s.trim()).filter((s) => s !== '');
  }
}
