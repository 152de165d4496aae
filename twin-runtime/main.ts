// Entry point of a twin container / child process:
//   node dist/twin-runtime/main.js --twin stripe --data FILE [--port 0] [--host 127.0.0.1]
//        [--seed FILE] [--clock ISO] [--clock-now ISO --clock-wall ISO] [--clock-mode living|frozen]
//        [--fidelity strict|lenient] [--public-url URL] [--key KEY]
//   node dist/twin-runtime/main.js --twin stripe --standby
//        (process driver's warm pool: load the twin, then wait for one JSON line on stdin
//         {data, seed?, clock?, clock_now?, clock_wall?, clock_mode?, fidelity?, public_url?, admin_secret?,
//          api_key?, port?, host?}
//         saying what to serve)
// `--clock` is the clock's start for a new data file (reset goes back there), `--clock-now` where
// such a file's clock stands (the environment's clock now) at wall time `--clock-wall`;
// `--clock-mode` how it moves (TwinHostOptions.clock, default frozen); `--fidelity` the
// environment's fidelity (default strict). Each also as an environment variable: TWIN_CLOCK,
// TWIN_CLOCK_NOW, TWIN_CLOCK_WALL, TWIN_CLOCK_MODE, TWIN_FIDELITY.
// The admin secret comes from TWIN_ADMIN_SECRET (or the standby line); the provider key from
// --key / TWIN_API_KEY / the standby line when the supervisor keeps it stable, else it is minted. When listening it prints
// one JSON line {"event":"listening","url":…,"api_key":…} on stdout; the process driver waits for it.

import { enableCompileCache } from 'node:module';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadTwin } from './registry.js';
import { isClockMode, type ClockMode } from './clock.js';
import type { TwinServer as Server } from './server.js';
import { surviveFullDisk } from './storage-full.js';
import { fetchStartFile } from './start-file.js';

// The compiled code of the ~250 modules a twin loads is kept on disk (NODE_COMPILE_CACHE, else
// node-compile-cache in the temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so
// every twin started after the first maps it instead of compiling again: about a fifth less CPU
// per cold start (scripts/bench/twin-start.ts). It covers what is imported from here on, so the
// server and the twin are imported below, not statically.
enableCompileCache();

const { values } = parseArgs({
  options: {
    twin: { type: 'string' },
    data: { type: 'string' },
    port: { type: 'string', default: process.env.TWIN_PORT ?? '0' },
    host: { type: 'string', default: process.env.TWIN_HOST ?? '127.0.0.1' },
    seed: { type: 'string' },
    clock: { type: 'string' },
    'clock-now': { type: 'string' },
    'clock-wall': { type: 'string' },
    'clock-mode': { type: 'string' },
    fidelity: { type: 'string' },
    'public-url': { type: 'string' },
    key: { type: 'string' },
    standby: { type: 'boolean', default: false },
  },
});

interface StartSpec {
  data?: string;
  seed?: string;
  clock?: string;
  clock_now?: string;
  clock_wall?: string;
  clock_mode?: string;
  fidelity?: string;
  public_url?: string;
  admin_secret?: string;
  api_key?: string;
  port?: number;
  host?: string;
  /** Configuration for this twin (TWINS_EGRESS, TWINS_EGRESS_DENY), applied before it starts. */
  env?: Record<string, string>;
}

// The twin's data file holds its records and keys: readable by the service user only.
process.umask(0o077);

const exitWithParent = process.env.TWIN_EXIT_WITH_PARENT === '1';
let server: Server | undefined;
let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server?.close();
  process.exit(0);
}
// A write that fails for lack of space outside a request (a delivery's bookkeeping) leaves the twin
// up: its requests answer 503 until space returns.
surviveFullDisk((err) => process.stderr.write(`twin: a background write failed, the disk is full (${(err as Error).message})\n`));
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

/** Standby: the first stdin line says what to serve; stdin closing (supervisor gone) stops us. */
function readStartLine(): Promise<StartSpec> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('line', (line) => resolve(JSON.parse(line) as StartSpec));
    lines.once('close', () => void stop());
  });
}

const slug = values.twin ?? process.env.TWIN_SLUG;
if (!slug || (!values.standby && !(values.data ?? process.env.TWIN_DATA_FILE))) {
  process.stderr.write('usage: twin-runtime --twin <slug> (--data <file> [--port N] | --standby)\n');
  process.exit(2);
}

const [twin, { TwinServer }] = await Promise.all([loadTwin(slug), import('./server.js')]);
const spec: StartSpec = values.standby
  ? await readStartLine()
  : {
      data: values.data ?? process.env.TWIN_DATA_FILE,
      seed: values.seed ?? process.env.TWIN_SEED_FILE,
      clock: values.clock ?? process.env.TWIN_CLOCK,
      clock_now: values['clock-now'] ?? process.env.TWIN_CLOCK_NOW,
      clock_wall: values['clock-wall'] ?? process.env.TWIN_CLOCK_WALL,
      clock_mode: values['clock-mode'] ?? process.env.TWIN_CLOCK_MODE,
      fidelity: values.fidelity ?? process.env.TWIN_FIDELITY,
      public_url: values['public-url'] ?? process.env.TWIN_PUBLIC_URL,
      admin_secret: process.env.TWIN_ADMIN_SECRET,
      api_key: values.key ?? process.env.TWIN_API_KEY,
    };
if (!spec.data) {
  process.stderr.write('twin-runtime: no data file given\n');
  process.exit(2);
}
const clockMode: ClockMode | undefined = spec.clock_mode ? (isClockMode(spec.clock_mode) ? spec.clock_mode : undefined) : undefined;
if (spec.clock_mode && !clockMode) {
  process.stderr.write(`twin-runtime: clock mode must be living or frozen, not '${spec.clock_mode}'\n`);
  process.exit(2);
}
if (spec.fidelity && spec.fidelity !== 'strict' && spec.fidelity !== 'lenient') {
  process.stderr.write(`twin-runtime: fidelity must be strict or lenient, not '${spec.fidelity}'\n`);
  process.exit(2);
}
// Under the kubernetes driver a seeded or snapshotted twin's starting file lives on the control
// plane: fetched once over its internal route, with the token minted for this twin.
const startFileUrl = process.env.TWIN_START_FILE_URL;
if (!spec.seed && startFileUrl) {
  try {
    spec.seed = await fetchStartFile(startFileUrl, process.env.TWIN_START_FILE_TOKEN ?? '', spec.data);
  } catch (e) {
    process.stderr.write(`twin-runtime: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
// A standby child learns its configuration with the start line.
for (const [k, v] of Object.entries(spec.env ?? {})) if (/^TWINS?_[A-Z_]+$/.test(k)) process.env[k] = v;

server = new TwinServer(twin, {
  dataFile: spec.data,
  seedFile: spec.seed,
  clockStart: spec.clock ? new Date(spec.clock) : undefined,
  clockNow: spec.clock_now ? new Date(spec.clock_now) : undefined,
  clockWall: spec.clock_wall ? new Date(spec.clock_wall) : undefined,
  clock: clockMode,
  fidelity: spec.fidelity as 'strict' | 'lenient' | undefined,
  adminSecret: spec.admin_secret ?? process.env.TWIN_ADMIN_SECRET,
  publicUrl: spec.public_url,
  apiKey: spec.api_key || process.env.TWIN_API_KEY || undefined,
  // Set by the process driver: the gateway on this host reaches us on the local socket (local-socket.ts).
  localSocket: process.env.TWIN_LOCAL_SOCKET === '1',
});
const url = await server.listen(spec.port ?? Number(values.port), spec.host ?? values.host);
process.stdout.write(JSON.stringify({ event: 'listening', url, twin: slug, api_key: server.apiKey }) + '\n');

// Supervised by the control plane's process driver: when the supervisor goes away (its end of our
// stdin closes, even on SIGKILL), stop too rather than linger as an orphan.
if (exitWithParent && !values.standby) {
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
}
