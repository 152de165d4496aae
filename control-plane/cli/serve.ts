// `twins serve`: the control plane until SIGINT/SIGTERM, with a note in its data directory so
// `twins token`, `twins mcp` and the API commands of the same folder find it.

import { resolve } from 'node:path';
import type { Handler } from './spec.js';
import { CliError } from './context.js';
import { removeServerNote, runningServer, writeServerNote } from './local-server.js';

export const serve: Handler = async (ctx) => {
  const { loadConfig } = await import('../config.js');
  const port = ctx.int('port');
  const host = ctx.str('host');
  const data = ctx.str('data');
  const config = loadConfig(ctx.io.env, {
    ...(port !== undefined ? { port } : {}),
    ...(host !== undefined ? { host } : {}),
    ...(data !== undefined ? { dataDir: resolve(ctx.io.cwd, data) } : {}),
  });
  const other = runningServer(config.dataDir);
  if (other)
    throw new CliError(`A control plane (pid ${other.pid}) already serves ${config.dataDir} at ${other.url}; stop it first, or use another --data directory.`);
  // The control plane itself is loaded only once we know it will run.
  const { startControlPlane } = await import('../server.js');
  const cp = await startControlPlane(config);
  // A write that fails for lack of space outside any request (a timer, a background job) is
  // reported, and the process stays up: every tenant shares it (the API answers 503 meanwhile).
  const { surviveFullDisk } = await import('../../twin-runtime/storage-full.js');
  surviveFullDisk((err) => {
    cp.services.storage.noteFull();
    cp.services.log.warn({ err: (err as Error).message }, 'a background write failed: the disk is full');
  });
  writeServerNote(config.dataDir, { url: cp.url, pid: process.pid, idp: config.idp, started_at: new Date().toISOString() });
  cp.services.log.info(
    { url: cp.url, driver: config.driver, dataDir: config.dataDir, plan: config.defaultPlan },
    `twins control plane listening on ${cp.url} (reference ${cp.url}/docs, MCP ${cp.url}/mcp)`,
  );
  const signal = await ctx.io.stopped;
  cp.services.log.info({ signal }, 'shutting down');
  await cp.close();
  removeServerNote(config.dataDir, process.pid);
  return 0;
};
