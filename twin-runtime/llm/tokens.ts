// Token counts for the model-provider twins (openai, anthropic), with gpt-tokenizer's real BPE
// encodings. An encoding is loaded on first use, not at start: o200k_base takes a second or more to
// load, which would delay every twin's readiness for a cost only model requests need.

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface Encoder {
  countTokens(text: string): number;
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

const loading = new Map<EncodingName, Promise<Encoder>>();

export function encoder(name: EncodingName): Promise<Encoder> {
  let p = loading.get(name);
  if (!p) {
    p =
      name === 'o200k_base'
        ? import('gpt-tokenizer/encoding/o200k_base').then((m) => m as unknown as Encoder)
        : import('gpt-tokenizer/encoding/cl100k_base').then((m) => m as unknown as Encoder);
    loading.set(name, p);
  }
  return p;
}

/** The first `max` tokens of `text` (for `max_tokens` truncation), and whether it was cut. */
export function truncateToTokens(enc: Encoder, text: string, max: number): { text: string; cut: boolean } {
  const tokens = enc.encode(text);
  if (tokens.length <= max) return { text, cut: false };
  return { text: enc.decode(tokens.slice(0, max)), cut: true };
}
