// Images through the official `openai` SDK: deterministic PNG stand-ins of the requested size, as
// base64 (GPT image models, with usage) or as a URL the twin serves (DALL·E); edits; refusals.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('openai');
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

/** Width and height from a PNG's IHDR. */
function pngSize(png: Buffer): [number, number] {
  if (png.toString('latin1', 1, 4) !== 'PNG') throw new Error('not a PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

t.test('generations', async (t) => {
  const a = await client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', size: '1536x1024' });
  const png = Buffer.from(a.data![0]!.b64_json!, 'base64');
  t.same(pngSize(png), [1536, 1024]);
  t.match(a, { output_format: 'png', size: '1536x1024', usage: { input_tokens: Number } });
  const b = await client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', size: '1536x1024' });
  t.equal(b.data![0]!.b64_json, a.data![0]!.b64_json, 'the same request draws the same picture');
  const c = await client.images.generate({ model: 'gpt-image-1', prompt: 'a harbour at dawn', size: '1536x1024' });
  t.not(c.data![0]!.b64_json, a.data![0]!.b64_json, 'another prompt draws another');

  const dalle = await client.images.generate({ model: 'dall-e-3', prompt: 'a cat', size: '1024x1792' });
  t.match(dalle.data![0], { url: /\/v1\/twin\/images\/img-/, revised_prompt: 'a cat' });
  const fetched = await fetch(dalle.data![0]!.url!);
  t.equal(fetched.status, 200, 'the URL serves the image without a key');
  t.same(pngSize(Buffer.from(await fetched.arrayBuffer())), [1024, 1792]);
});

t.test('edits and refusals', async (t) => {
  const source = Buffer.from((await client.images.generate({ model: 'gpt-image-1', prompt: 'x', size: '1024x1024' })).data![0]!.b64_json!, 'base64');
  const edited = await client.images.edit({ model: 'gpt-image-1', prompt: 'add a moon', image: await toFile(source, 'in.png', { type: 'image/png' }) });
  t.same(pngSize(Buffer.from(edited.data![0]!.b64_json!, 'base64')), [1024, 1024]);
  const n = await client.images.generate({ model: 'dall-e-3', prompt: 'x', n: 2 }).catch((e: unknown) => e);
  t.ok(n instanceof OpenAI.BadRequestError, 'dall-e-3 draws one image at a time');
  const size = await client.images.generate({ model: 'dall-e-2', prompt: 'x', size: '1536x1024' }).catch((e: unknown) => e);
  t.ok(size instanceof OpenAI.BadRequestError, 'a size the model does not draw');
  const chat = await client.images.generate({ model: 'gpt-4o-mini', prompt: 'x' }).catch((e: unknown) => e);
  t.ok(chat instanceof OpenAI.BadRequestError, 'a chat model draws no images');
  const webp = await client.images.generate({ model: 'gpt-image-1', prompt: 'x', output_format: 'webp' }).catch((e: unknown) => e);
  t.equal((webp as InstanceType<typeof OpenAI.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'webp is refused as not simulated');
});
