// A model-provider twin (openai, anthropic) started in-process behind the recording gateway, the
// way an environment serves it: tests point the official SDK at `url` and read what the gateway
// logged.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { startTwin, type RunningTwin } from '../helpers/twin.js';

export interface GatewayedTwin {
  twin: RunningTwin;
  /** The gateway's URL for this twin. */
  url: string;
  apiKey: string;
  /** Request log rows written so far (the writer is flushed first). */
  logged(): Promise<RequestLogRow[]>;
  close(): Promise<void>;
}

let n = 0;

export async function startBehindGateway(slug: string, opts: { seedFile?: string; clockStart?: Date } = {}): Promise<GatewayedTwin> {
  const dir = mkdtempSync(join(tmpdir(), `gw-${slug}-`));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const twin = await startTwin(slug, opts);
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const env = `env-${slug}-${++n}`;
  const route = { twinId: `${slug}-twin-${n}`, environmentId: env, organizationId: 'org-1', slug };
  const { url } = await gateway.open(route);
  gateway.setTarget(route.twinId, twin.url);
  return {
    twin,
    url,
    apiKey: twin.apiKey,
    async logged() {
      await new Promise((r) => setTimeout(r, 50));
      return logs.page(env, 1000, 0).reverse();
    },
    async close() {
      await gateway.closeAll();
      writer.close();
      await twin.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
