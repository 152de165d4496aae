// One twin in-process behind the control plane's gateway (TwinGateway, with request recording and
// TLS from a local CA in a temporary data directory): the URL a caller gets for a twin of an
// environment, without starting the whole control plane.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { ensureTls } from '../../twin-runtime/tls.js';
import { startTwin, type RunningTwin } from './twin.js';

export interface GatewayTwin {
  twin: RunningTwin;
  /** The gateway URL (http); `httpsUrl` is the same host and port over TLS. */
  url: string;
  httpsUrl: string;
  apiKey: string;
  /** PEM of the local CA that signed the gateway's certificate. */
  caFile: string;
  logs: RequestLogStore;
  close(): Promise<void>;
}

export async function startTwinBehindGateway(slug: string, opts: { clockStart?: Date } = {}): Promise<GatewayTwin> {
  const dir = mkdtempSync(join(tmpdir(), `twins-gw-${slug}-`));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const tls = ensureTls(dir);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer, tls });
  const twin = await startTwin(slug, { clockStart: opts.clockStart });
  const { url } = await gateway.open({ twinId: `twin-${slug}`, environmentId: 'env-1', organizationId: 'org-1', slug });
  gateway.setTarget(`twin-${slug}`, twin.url);
  // The twin's own links (clone_url, url fields) name the gateway, as for a twin of an environment.
  twin.server.ctx.baseUrl = url;
  return {
    twin,
    url,
    httpsUrl: url.replace(/^http:/, 'https:'),
    apiKey: twin.apiKey,
    caFile: tls.caFile,
    logs,
    async close() {
      await gateway.closeAll();
      writer.close();
      await twin.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same, read as a list of what the gateway logged (every answered request is already committed). */
export async function startGatewayTwin(
  slug: string,
  opts: { clockStart?: Date } = {},
): Promise<GatewayTwin & { logged(): Promise<{ method: string; path: string; status_code: number }[]> }> {
  const gw = await startTwinBehindGateway(slug, opts);
  return {
    ...gw,
    async logged() {
      return gw.logs.page('env-1', 10_000, 0) as unknown as { method: string; path: string; status_code: number }[];
    },
  };
}
