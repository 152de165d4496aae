// One twin behind the recording gateway, as an environment serves it: the official SDK talks to
// the gateway's URL, the gateway logs every request into a control-plane database of its own.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { startTwin, type RunningTwin } from './twin.js';

export interface GatewayTwin {
  twin: RunningTwin;
  /** The gateway's URL for the twin (what an environment hands out). */
  url: string;
  /** Requests the gateway logged so far (flushes first). */
  logged(): Promise<{ method: string; path: string; status_code: number }[]>;
  close(): Promise<void>;
}

export async function startGatewayTwin(slug: string, opts: { clockStart?: Date } = {}): Promise<GatewayTwin> {
  const dir = mkdtempSync(join(tmpdir(), `gw-${slug}-`));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const twin = await startTwin(slug, opts);
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs, undefined, { flushIntervalMs: 10 });
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const route = { twinId: `${slug}-twin`, environmentId: 'env-1', organizationId: 'org-1', slug };
  const { url } = await gateway.open(route);
  gateway.setTarget(route.twinId, twin.url);
  return {
    twin,
    url,
    async logged() {
      await new Promise((r) => setTimeout(r, 50));
      return logs.page('env-1', 10_000, 0) as unknown as { method: string; path: string; status_code: number }[];
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
