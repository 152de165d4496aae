// One twin in-process behind the control plane's gateway (TwinGateway, with request recording and
// TLS from a local CA in a temporary data directory): the URL a caller gets for a twin of an
// environment, without starting the whole control plane. Every test that needs the recording
// gateway in front of a twin starts it here.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { ensureTls, hostTls } from '../../twin-runtime/tls.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import { startTwin, type RunningTwin } from './twin.js';
import { seedTestTls } from './tls-template.js';

export interface GatewayTwin {
  twin: RunningTwin;
  /** The gateway URL (http); `httpsUrl` is the same host and port over TLS. */
  url: string;
  httpsUrl: string;
  /**
   * The twin's own loopback address served at port 443 (twins whose definition asks for one, where
   * this process may bind it): what `gh` takes as GH_HOST inside a clone.
   */
  ownHost?: string;
  apiKey: string;
  /** PEM of the local CA that signed the gateway's certificate. */
  caFile: string;
  /** The environment the gateway logs this twin's requests under. */
  environmentId: string;
  logs: RequestLogStore;
  /** What the gateway logged, newest first as the logs API lists it (every answered request is committed). */
  logged(): Promise<RequestLogRow[]>;
  close(): Promise<void>;
}

let started = 0;

export async function startTwinBehindGateway(slug: string, opts: { clockStart?: Date; seedFile?: string } = {}): Promise<GatewayTwin> {
  const dir = mkdtempSync(join(tmpdir(), `twins-gw-${slug}-`));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  seedTestTls(dir); // the CA and server certificate made once per checkout, not per file
  const tls = ensureTls(dir);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer, tls, hostTls: (address) => hostTls(dir, address) });
  const n = ++started;
  const ownHost = (await loadTwin(slug)).ownHost;
  const route = { twinId: `twin-${slug}-${n}`, environmentId: `env-${n}`, organizationId: 'org-1', slug, ownHost };
  // The gateway first: the twin's own links (clone_url, response URLs, Socket Mode URLs) name it,
  // as for a twin of an environment.
  const { url, host } = await gateway.open(route);
  const twin = await startTwin(slug, { clockStart: opts.clockStart, seedFile: opts.seedFile, dataDir: dir, publicUrl: url });
  gateway.setTarget(route.twinId, twin.url);
  return {
    twin,
    url,
    httpsUrl: url.replace(/^http:/, 'https:'),
    ...(host ? { ownHost: host } : {}),
    apiKey: twin.apiKey,
    caFile: tls.caFile,
    environmentId: route.environmentId,
    logs,
    async logged() {
      return logs.page(route.environmentId, 10_000, 0);
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

/** The same under the name the first suites used. */
export const startGatewayTwin = startTwinBehindGateway;
