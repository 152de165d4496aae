// Entry point of a twin container / child process:
//   node dist/twin-runtime/main.js --twin stripe --data FILE [--port 0] [--host 127.0.0.1]
//        [--seed FILE] [--clock ISO] [--public-url URL]
// The admin secret comes from TWIN_ADMIN_SECRET. When listening it prints one JSON line
// {"event":"listening","url":…,"api_key":…} on stdout; the process driver waits for it.

import { parseArgs } from 'node:util';
import { loadTwin } from './registry.js';
import { TwinServer } from './server.js';

const { values } = parseArgs({
  options: {
    twin: { type: 'string' },
    data: { type: 'string' },
    port: { type: 'string', default: process.env.TWIN_PORT ?? '0' },
    host: { type: 'string', default: process.env.TWIN_HOST ?? '127.0.0.1' },
    seed: { type: 'string' },
    clock: { type: 'string' },
    'public-url': { type: 'string' },
  },
});

const slug = values.twin ?? process.env.TWIN_SLUG;
const data = values.data ?? process.env.TWIN_DATA_FILE;
if (!slug || !data) {
  process.stderr.write('usage: twin-runtime --twin <slug> --data <file> [--port N]\n');
  process.exit(2);
}

const twin = await loadTwin(slug);
const server = new TwinServer(twin, {
  dataFile: data,
  seedFile: values.seed ?? process.env.TWIN_SEED_FILE,
  clockStart: values.clock ?? process.env.TWIN_CLOCK ? new Date((values.clock ?? process.env.TWIN_CLOCK)!) : undefined,
  adminSecret: process.env.TWIN_ADMIN_SECRET,
  publicUrl: values['public-url'] ?? process.env.TWIN_PUBLIC_URL,
});
const url = await server.listen(Number(values.port), values.host);
process.stdout.write(JSON.stringify({ event: 'listening', url, twin: slug, api_key: server.apiKey }) + '\n');

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
