// Images: POST /v1/images/generations (JSON), POST /v1/images/edits (multipart), and the twin-only
// GET /v1/twin/images/{file} a `url` answer points at.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { createImages, storedImage } from '../model/images.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { operationBody, optBool, optInt, optString, reqString } from '../wire/params.js';

function responseFormat(v: string | undefined): 'url' | 'b64_json' | undefined {
  if (v === undefined || v === 'url' || v === 'b64_json') return v;
  throw invalidRequest(`Invalid value: '${v}'. Supported values are: 'url' and 'b64_json'.`, 'response_format', 'invalid_value');
}

const EDIT_FIELDS = [
  'prompt',
  'model',
  'n',
  'size',
  'quality',
  'response_format',
  'output_format',
  'background',
  'input_fidelity',
  'output_compression',
  'user',
  'stream',
  'partial_images',
];

export const imageRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/images/generations',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/images/generations');
      if (optBool(body, 'stream')) throw new NotSimulated('POST /v1/images/generations with stream', 'The twin answers images whole.');
      const { stream: _stream, ...asked } = body;
      return {
        status: 200,
        body: createImages(ctx, {
          endpoint: 'image_generation',
          model: optString(body, 'model') ?? 'dall-e-2',
          prompt: reqString(body, 'prompt'),
          n: optInt(body, 'n', 1, 10) ?? 1,
          size: optString(body, 'size'),
          quality: optString(body, 'quality'),
          responseFormat: responseFormat(optString(body, 'response_format')),
          outputFormat: optString(body, 'output_format'),
          asked,
        }),
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/images/edits',
    async handler(req, ctx) {
      const form = await readMultipart(req);
      const images = [...(form.fileLists.get('image') ?? []), ...(form.fileLists.get('image[]') ?? [])];
      if (images.length === 0) throw missingParameter('image');
      if (images.length > 16) throw invalidRequest("Invalid 'image': at most 16 images.", 'image', 'array_above_max_length');
      const extra = [...form.fields.keys(), ...form.fileLists.keys()].find((k) => !['image', 'image[]', 'mask', ...EDIT_FIELDS].includes(k));
      if (extra !== undefined) throw invalidRequest(`Unknown parameter: '${extra}'.`, extra, 'unknown_parameter');
      if (form.fields.get('stream') === 'true') throw new NotSimulated('POST /v1/images/edits with stream', 'The twin answers images whole.');
      const prompt = form.fields.get('prompt');
      if (prompt === undefined) throw missingParameter('prompt');
      const n = form.fields.get('n');
      if (n !== undefined && !/^([1-9]|10)$/.test(n)) throw invalidRequest("Invalid 'n': expected 1 to 10.", 'n', 'invalid_value');
      return {
        status: 200,
        body: createImages(ctx, {
          endpoint: 'image_edit',
          model: form.fields.get('model') ?? 'dall-e-2',
          prompt,
          n: n === undefined ? 1 : Number(n),
          size: form.fields.get('size'),
          quality: form.fields.get('quality'),
          responseFormat: responseFormat(form.fields.get('response_format')),
          outputFormat: form.fields.get('output_format'),
          asked: { fields: Object.fromEntries(form.fields), images: images.map((i) => i.content.toString('base64')) },
        }),
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/twin/images/{file}',
    public: true,
    unmetered: true,
    handler: (req, ctx) => ({ status: 200, headers: { 'content-type': 'image/png' }, body: storedImage(ctx, req.params.file!) }),
  },
];
