// Audio through the official `openai` SDK: speech as silent MP3/WAV/PCM of the text's length,
// transcripts scripted by file name or deterministic from the audio, their formats, refusals.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('openai');
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

t.test('speech', async (t) => {
  const text = 'The quick brown fox jumps over the lazy dog, twice over.';
  const mp3 = Buffer.from(await (await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'coral', input: text })).arrayBuffer());
  t.same([mp3[0], mp3[1] & 0xe0], [0xff, 0xe0], 'starts with an MPEG frame sync');
  t.equal(mp3.length % 417, 0, 'whole frames');
  const wav = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: text, response_format: 'wav' })).arrayBuffer());
  t.equal(wav.toString('ascii', 0, 4), 'RIFF');
  const seconds = wav.readUInt32LE(40) / (24_000 * 2);
  t.ok(Math.abs(seconds - text.length / 15) < 0.1, `${seconds.toFixed(2)} s for ${text.length} characters`);
  const fast = Buffer.from(
    await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: text, response_format: 'pcm', speed: 2 })).arrayBuffer(),
  );
  t.ok(Math.abs(fast.length / 48_000 - seconds / 2) < 0.1, 'speed 2 halves the length');
  const voice = await client.audio.speech.create({ model: 'tts-1', voice: 'robot' as 'alloy', input: 'x' }).catch((e: unknown) => e);
  t.ok(voice instanceof OpenAI.BadRequestError, 'an unknown voice is refused');
  const opus = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x', response_format: 'opus' }).catch((e: unknown) => e);
  t.equal((opus as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported');
});

t.test('transcriptions and translations', async (t) => {
  const res = await fetch(`${twin.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ match: { model: 'whisper-1', contains: 'meeting.mp3' }, response: { text: 'Let us ship on Friday.' } }),
  });
  t.equal(res.status, 200);
  const audio = await toFile(Buffer.from('fake audio bytes'), 'meeting.mp3');
  const scripted = await client.audio.transcriptions.create({ model: 'whisper-1', file: audio });
  t.equal(scripted.text, 'Let us ship on Friday.');
  const srt = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('x'), 'meeting.mp3'), response_format: 'srt' });
  t.match(srt, /^1\n00:00:00,000 --> 00:00:\d\d,\d{3}\nLet us ship on Friday\.\n/);
  const a = await client.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(Buffer.from('other audio'), 'a.wav') });
  const b = await client.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(Buffer.from('other audio'), 'b.wav') });
  t.ok(a.text.length > 0);
  t.equal(a.text, b.text, 'the same audio, the same transcript');
  const translated = await client.audio.translations.create({ model: 'whisper-1', file: await toFile(Buffer.from('x'), 'meeting.mp3') });
  t.equal(translated.text, 'Let us ship on Friday.');
  const vtt = await client.audio.transcriptions
    .create({ model: 'gpt-4o-transcribe', file: await toFile(Buffer.from('x'), 'c.wav'), response_format: 'vtt' })
    .catch((e: unknown) => e);
  t.ok(vtt instanceof OpenAI.BadRequestError, 'gpt-4o transcription models answer json or text');
  const notAudio = await client.audio.translations
    .create({ model: 'gpt-4o-transcribe', file: await toFile(Buffer.from('x'), 'c.wav') })
    .catch((e: unknown) => e);
  t.ok(notAudio instanceof OpenAI.BadRequestError, 'only whisper-1 translates');
});
