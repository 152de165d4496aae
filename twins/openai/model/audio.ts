// Audio as deterministic stand-ins. Speech is silence of the length the text would take to say
// (about 15 characters a second at speed 1) as MP3 frames, WAV or raw PCM; a transcript is the text
// of a scripted response matching the file name (narrowed to the transcription model with
// `match.model`), else deterministic sentences from the audio's digest.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { DeterministicSource, deterministicText, digestOf } from '../../../twin-runtime/llm/determinism.js';
import { findScripted } from '../../../twin-runtime/llm/scripted.js';
import { MODELS } from '../spec/models.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';

const VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
const CHARS_PER_SECOND = 15;
const PCM_RATE = 24_000;
/** A silent MPEG-1 Layer III frame: 128 kbit/s, 44.1 kHz, mono; 1152 samples (26.1 ms), 417 bytes. */
const MP3_FRAME = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0xc4]), Buffer.alloc(413)]);

function served(model: string, endpoint: string, what: string): void {
  if (!MODELS.get(model)?.endpoints.includes(endpoint))
    throw new OpenAIError(400, `The model '${model}' does not support ${what}.`, 'invalid_request_error', 'model', null);
}

function wav(pcm: Buffer): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(PCM_RATE, 24);
  h.writeUInt32LE(PCM_RATE * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

export function createSpeech(input: { model: string; input: string; voice: string; format?: string; speed?: number }): { body: Buffer; contentType: string } {
  served(input.model, 'speech_generation', 'speech');
  if (input.input.length > 4096) {
    throw invalidRequest(
      `Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string with length ${input.input.length} instead.`,
      'input',
      'string_above_max_length',
    );
  }
  if (!VOICES.includes(input.voice))
    throw invalidRequest(`Invalid value: '${input.voice}'. Supported values are: ${VOICES.map((v) => `'${v}'`).join(', ')}.`, 'voice', 'invalid_value');
  const seconds = Math.max(0.5, input.input.length / CHARS_PER_SECOND / (input.speed ?? 1));
  const format = input.format ?? 'mp3';
  if (format === 'mp3') return { body: Buffer.concat(Array(Math.ceil((seconds * 44_100) / 1152)).fill(MP3_FRAME)), contentType: 'audio/mpeg' };
  const pcm = Buffer.alloc(Math.round(seconds * PCM_RATE) * 2);
  if (format === 'wav') return { body: wav(pcm), contentType: 'audio/wav' };
  if (format === 'pcm') return { body: pcm, contentType: 'audio/pcm' };
  throw new NotSimulated(`POST /v1/audio/speech with response_format=${format}`, 'The twin writes mp3, wav and pcm.');
}

/** The transcript of an audio file: scripted (by model and file name), else deterministic. */
export function transcribe(ctx: TwinContext, input: { model: string; filename: string; audio: Buffer; endpoint: 'transcription' | 'translation' }): string {
  served(input.model, input.endpoint, input.endpoint === 'translation' ? 'translations' : 'transcriptions');
  if (input.audio.length === 0) throw invalidRequest('Audio file is empty.', 'file', null);
  const scripted = findScripted(ctx.store, { model: input.model, text: input.filename, tools: [] });
  if (scripted?.response.text !== undefined) return scripted.response.text;
  return deterministicText(new DeterministicSource(digestOf({ audio: input.audio.toString('base64'), endpoint: input.endpoint })), '');
}

/** A transcript in the requested format (json, text, srt, vtt, verbose_json). */
export function transcriptBody(text: string, format: string, seconds: number): { body: unknown; contentType?: string } {
  const stamp = (s: number, sep: string) => `00:00:${String(Math.floor(s)).padStart(2, '0')}${sep}${String(Math.round((s % 1) * 1000)).padStart(3, '0')}`;
  if (format === 'json') return { body: { text } };
  if (format === 'text') return { body: `${text}\n`, contentType: 'text/plain; charset=utf-8' };
  if (format === 'srt') return { body: `1\n${stamp(0, ',')} --> ${stamp(seconds, ',')}\n${text}\n\n`, contentType: 'text/plain; charset=utf-8' };
  if (format === 'vtt') return { body: `WEBVTT\n\n${stamp(0, '.')} --> ${stamp(seconds, '.')}\n${text}\n\n`, contentType: 'text/plain; charset=utf-8' };
  if (format === 'verbose_json') {
    return {
      body: {
        task: 'transcribe',
        language: 'english',
        duration: seconds,
        text,
        segments: [
          { id: 0, seek: 0, start: 0, end: seconds, text, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.2, no_speech_prob: 0.01 },
        ],
      },
    };
  }
  throw invalidRequest(
    `Invalid value: '${format}'. Supported values are: 'json', 'text', 'srt', 'verbose_json', and 'vtt'.`,
    'response_format',
    'invalid_value',
  );
}
