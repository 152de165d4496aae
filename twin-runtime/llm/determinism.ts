// Deterministic answers of the model-provider twins: everything a model "says" without a script is
// derived from a digest of the request (what was asked, not how it is delivered: `stream` is left
// out), so the same request in the same state always gets the same bytes, in every environment.

import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so two equal requests digest alike whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function digestOf(value: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(value)).digest();
}

/** A stream of deterministic numbers: SHA-256 in counter mode over a seed digest. */
export class DeterministicSource {
  private block = Buffer.alloc(0);
  private offset = 0;
  private counter = 0;

  constructor(private readonly seed: Buffer) {}

  uint32(): number {
    if (this.offset + 4 > this.block.length) {
      this.block = createHash('sha256')
        .update(this.seed)
        .update(String(this.counter++))
        .digest();
      this.offset = 0;
    }
    const v = this.block.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  /** Uniform in [0, 1). */
  unit(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  int(min: number, max: number): number {
    return min + (this.uint32() % (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.uint32() % items.length]!;
  }

  /** A derived source (for the n-th choice, say), independent of how much this one was used. */
  fork(label: string): DeterministicSource {
    return new DeterministicSource(createHash('sha256').update(this.seed).update(`fork:${label}`).digest());
  }
}

const WORDS = [
  'the',
  'request',
  'twin',
  'answer',
  'model',
  'data',
  'result',
  'value',
  'system',
  'user',
  'record',
  'update',
  'status',
  'account',
  'order',
  'message',
  'summary',
  'detail',
  'context',
  'step',
  'plan',
  'report',
  'change',
  'check',
  'list',
  'item',
  'note',
  'task',
  'review',
  'draft',
  'ticket',
  'customer',
  'team',
  'project',
  'issue',
  'reply',
  'state',
  'time',
  'example',
  'option',
  'reason',
  'source',
  'field',
  'event',
  'signal',
  'metric',
  'clear',
  'simple',
  'stable',
  'final',
  'current',
  'next',
  'useful',
  'quick',
  'careful',
  'complete',
  'short',
  'is',
  'shows',
  'needs',
  'keeps',
  'follows',
  'uses',
  'gives',
  'covers',
  'matches',
  'confirms',
  'describes',
];

function sentence(rng: DeterministicSource): string {
  const n = rng.int(6, 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const s = words.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + '.';
}

/** Collapse whitespace and cut a prompt excerpt to `max` characters (whole words where possible). */
export function excerpt(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The unscripted answer to a prompt: it names what it answers (so a log reader sees which turn it
 * is) and continues with two to four sentences drawn from the request's digest.
 */
export function deterministicText(rng: DeterministicSource, prompt: string): string {
  const count = rng.int(2, 4);
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) sentences.push(sentence(rng));
  const about = excerpt(prompt);
  return about ? `Twin answer to "${about}": ${sentences.join(' ')}` : sentences.join(' ');
}

/** Split an answer into stream deltas the way the providers do (a word and the space before it). */
export function streamPieces(text: string): string[] {
  const pieces = text.match(/\s*\S+|\s+$/g) ?? [];
  return pieces.length > 0 ? pieces : [text];
}

/** Split a string into pieces of at most `size` characters (tool-call arguments stream in fragments). */
export function fragments(text: string, size = 12): string[] {
  if (text === '') return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
