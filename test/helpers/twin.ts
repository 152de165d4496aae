// Start one twin in-process on a loopback port with its own temporary SQLite file.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import type { FidelityMode } from '../../twin-runtime/fidelity.js';

export interface RunningTwin {
  server: TwinServer;
  url: string;
  apiKey: string;
  dataFile: string;
  /** Move the environment clock (what the control plane's advance does). */
  advance(to: Date): Promise<void>;
  close(): Promise<void>;
}

export async function startTwin(
  slug: string,
  opts: { clockStart?: Date; seedFile?: string; dataDir?: string; publicUrl?: string; clock?: 'living' | 'frozen'; fidelity?: FidelityMode } = {},
): Promise<RunningTwin> {
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), `twin-${slug}-`));
  const dataFile = join(dir, `${slug}.sqlite`);
  const server = new TwinServer(await loadTwin(slug), {
    dataFile,
    seedFile: opts.seedFile,
    clockStart: opts.clockStart,
    // The URL the twin's own links name (a gateway in front of it); its listening URL otherwise.
    publicUrl: opts.publicUrl,
    // Frozen unless asked: a test's instants are then the ones it set.
    clock: opts.clock,
    fidelity: opts.fidelity,
  });
  const url = await server.listen(0, '127.0.0.1');
  return {
    server,
    url,
    apiKey: server.apiKey,
    dataFile,
    async advance(to: Date) {
      const res = await fetch(`${url}/_twin/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // In-process tests wait for the whole advance (the runtime answers 202 after 800 ms otherwise).
        body: JSON.stringify({ to: to.toISOString(), wait_ms: 600_000 }),
      });
      if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${await res.text()}`);
    },
    async close() {
      await server.close();
      if (!opts.dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
