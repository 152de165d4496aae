// Images as deterministic stand-ins: a PNG of the requested size whose colours come from the
// request's digest (the same request, the same picture), as `b64_json` or as a `url` the twin
// serves. GPT image models answer base64 with token usage; DALL·E answers a URL by default.

import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { MODELS } from '../spec/models.js';

export const IMAGE = 'image';

const SIZES: Record<string, readonly string[]> = {
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  gpt: ['1024x1024', '1536x1024', '1024x1536', 'auto'],
};
const PROMPT_LIMIT: Record<string, number> = { 'dall-e-2': 1000, 'dall-e-3': 4000, gpt: 32000 };

export interface ImageRequest {
  endpoint: 'image_generation' | 'image_edit';
  model: string;
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
  responseFormat?: 'url' | 'b64_json';
  outputFormat?: string;
  /** What else was asked (input images), for the digest. */
  asked: unknown;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A width×height RGB PNG: a vertical gradient between two colours taken from `seed`. */
export function gradientPng(width: number, height: number, seed: Buffer): Buffer {
  const [r0, g0, b0, r1, g1, b1] = seed;
  const row = Buffer.alloc(1 + width * 3);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const t = height === 1 ? 0 : y / (height - 1);
    const px = [r0!, g0!, b0!].map((c, i) => Math.round(c + ([r1!, g1!, b1!][i]! - c) * t));
    for (let x = 0; x < width; x++) row.set(px, 1 + x * 3);
    rows.push(Buffer.from(row));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function createImages(ctx: TwinContext, req: ImageRequest) {
  const spec = MODELS.get(req.model);
  if (!spec?.endpoints.includes(req.endpoint)) {
    throw new OpenAIError(
      400,
      `The model '${req.model}' does not support ${req.endpoint === 'image_edit' ? 'image edits' : 'image generation'}.`,
      'invalid_request_error',
      'model',
      null,
    );
  }
  const family = req.model.startsWith('dall-e') ? req.model : 'gpt';
  if (req.prompt.length > PROMPT_LIMIT[family]!) {
    throw invalidRequest(
      `Invalid 'prompt': string too long. Expected a string with maximum length ${PROMPT_LIMIT[family]}, but got a string with length ${req.prompt.length} instead.`,
      'prompt',
      'string_above_max_length',
    );
  }
  if (req.model === 'dall-e-3' && req.n !== 1) throw invalidRequest('You must provide n=1 for this model.', 'n', null);
  const size = req.size ?? (family === 'gpt' ? 'auto' : '1024x1024');
  if (!SIZES[family]!.includes(size)) {
    throw invalidRequest(`Invalid value: '${size}'. Supported values are: ${SIZES[family]!.map((s) => `'${s}'`).join(', ')}.`, 'size', 'invalid_value');
  }
  if (req.outputFormat !== undefined && req.outputFormat !== 'png')
    throw new NotSimulated(
      `${req.endpoint === 'image_edit' ? 'POST /v1/images/edits' : 'POST /v1/images/generations'} with output_format=${req.outputFormat}`,
      'The twin draws PNG images.',
    );
  if (family === 'gpt' && req.responseFormat === 'url') throw invalidRequest("Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
  const [w, h] = (size === 'auto' ? '1024x1024' : size).split('x').map(Number) as [number, number];
  const format = family === 'gpt' ? 'b64_json' : (req.responseFormat ?? 'url');
  const data = Array.from({ length: req.n }, (_, i) => {
    const seed = createHash('sha256')
      .update(JSON.stringify({ ...req, i }))
      .digest();
    const png = gradientPng(w, h, seed);
    if (format === 'b64_json') return { b64_json: png.toString('base64'), ...(req.model === 'dall-e-3' ? { revised_prompt: req.prompt } : {}) };
    const id = ctx.ids.nextIn('img', 'img-', 24);
    ctx.store.put(IMAGE, id, { png_base64: png.toString('base64'), created_at: ctx.clock.nowSeconds() });
    return { url: `${ctx.baseUrl}/v1/twin/images/${id}.png`, ...(req.model === 'dall-e-3' ? { revised_prompt: req.prompt } : {}) };
  });
  const promptTokens = Math.max(1, Math.ceil(req.prompt.length / 4));
  const imageTokens = req.n * Math.ceil((w * h) / 1024 / 4);
  return {
    created: ctx.clock.nowSeconds(),
    data,
    ...(family === 'gpt'
      ? {
          background: 'opaque',
          output_format: 'png',
          quality: req.quality === undefined || req.quality === 'auto' ? 'high' : req.quality,
          size: `${w}x${h}`,
          usage: {
            input_tokens: promptTokens,
            input_tokens_details: { text_tokens: promptTokens, image_tokens: 0 },
            output_tokens: imageTokens,
            total_tokens: promptTokens + imageTokens,
          },
        }
      : {}),
  };
}

/** An image a `url` answer points at (an hour, as OpenAI's URLs last). */
export function storedImage(ctx: TwinContext, file: string): Buffer {
  const id = file.replace(/\.png$/, '');
  const s = ctx.store.get<{ png_base64: string; created_at: number }>(IMAGE, id);
  if (!s || ctx.clock.nowSeconds() > s.created_at + 3600)
    throw new OpenAIError(404, 'The image does not exist or has expired.', 'invalid_request_error', null, null);
  return Buffer.from(s.png_base64, 'base64');
}
