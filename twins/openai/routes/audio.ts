// Audio: POST /v1/audio/speech (JSON), /v1/audio/transcriptions and /v1/audio/translations (multipart).

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { createSpeech, transcribe, transcriptBody } from '../model/audio.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { readMultipart } from '../wire/multipart.js';
import { operationBody, optNumber, optString, reqString } from '../wire/params.js';

const FORM_FIELDS = [
  'file',
  'model',
  'prompt',
  'response_format',
  'temperature',
  'language',
  'timestamp_granularities[]',
  'include[]',
  'stream',
  'chunking_strategy',
];

async function transcriptRoute(req: TwinRequest, ctx: TwinContext, endpoint: 'transcription' | 'translation') {
  const form = await readMultipart(req);
  const file = form.files.get('file');
  if (!file) throw missingParameter('file');
  const model = form.fields.get('model');
  if (model === undefined) throw missingParameter('model');
  const extra = [...form.fields.keys()].find((k) => !FORM_FIELDS.includes(k));
  if (extra !== undefined) throw invalidRequest(`Unknown parameter: '${extra}'.`, extra, 'unknown_parameter');
  if (form.fields.get('stream') === 'true') throw new NotSimulated(`POST ${req.path} with stream`, 'The twin answers transcripts whole.');
  const text = transcribe(ctx, { model, filename: file.filename, audio: file.content, endpoint });
  const format = form.fields.get('response_format') ?? 'json';
  if (model.startsWith('gpt-') && format !== 'json' && format !== 'text') {
    throw invalidRequest(`response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text'.`, 'response_format', 'unsupported_value');
  }
  // Speech runs at about 15 characters a second.
  const { body, contentType } = transcriptBody(text, format, Math.max(1, Math.round(text.length / 15)));
  return { status: 200, ...(contentType ? { headers: { 'content-type': contentType } } : {}), body };
}

export const audioRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/audio/speech',
    handler(req) {
      const body = operationBody(req, 'POST /v1/audio/speech');
      if (optString(body, 'stream_format') === 'sse') throw new NotSimulated('POST /v1/audio/speech with stream_format=sse', 'The twin answers audio whole.');
      const { body: audio, contentType } = createSpeech({
        model: reqString(body, 'model'),
        input: reqString(body, 'input'),
        voice: reqString(body, 'voice'),
        format: optString(body, 'response_format'),
        speed: optNumber(body, 'speed', 0.25, 4),
      });
      return { status: 200, headers: { 'content-type': contentType }, body: audio };
    },
  },
  { method: 'POST', path: '/v1/audio/transcriptions', handler: (req, ctx) => transcriptRoute(req, ctx, 'transcription') },
  { method: 'POST', path: '/v1/audio/translations', handler: (req, ctx) => transcriptRoute(req, ctx, 'translation') },
];
