// A Slack twin behind the real gateway (control-plane/gateway), as apps meet it: every Web API
// call, response URL and the Socket Mode WebSocket go through the gateway URL.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogLevel, WebClient } from '@slack/web-api';
import { openDatabase } from '../../../control-plane/store/database.js';
import { RequestLogStore } from '../../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../../control-plane/gateway/gateway.js';
import { loadTwin } from '../../../twin-runtime/registry.js';
import { TwinServer } from '../../../twin-runtime/server.js';
import { appLink } from '../../../twins/slack/model/app-link.js';

export interface SlackCredential {
  api_key: string;
  app_token: string;
  signing_secret: string;
  client_id: string;
  client_secret: string;
}

export interface GatewayedSlack {
  server: TwinServer;
  /** The gateway URL apps use. */
  url: string;
  apiUrl: string;
  credential: SlackCredential;
  /** The bot-token client (what a test uses to look around). */
  client: WebClient;
  /** Call a twin-only method (or any method) with the bot token. */
  call<T = Record<string, any>>(method: string, args?: Record<string, unknown>): Promise<T>;
  logs: RequestLogStore;
  link(): ReturnType<typeof appLink>;
  close(): Promise<void>;
}

export async function startGatewayedSlack(): Promise<GatewayedSlack> {
  const dir = mkdtempSync(join(tmpdir(), 'twin-slack-apps-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const { url } = await gateway.open({ twinId: 'slack-1', environmentId: 'env-1', organizationId: 'org-1', slug: 'slack' });
  const server = new TwinServer(await loadTwin('slack'), {
    dataFile: join(dir, 'slack.sqlite'),
    clockStart: new Date('2026-03-02T09:00:00Z'),
    publicUrl: url,
  });
  const twinUrl = await server.listen(0, '127.0.0.1');
  gateway.setTarget('slack-1', twinUrl);
  const credential = (await (await fetch(`${twinUrl}/_twin/credential`)).json()) as SlackCredential;
  const apiUrl = `${url}/api/`;
  const client = new WebClient(credential.api_key, { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
  return {
    server,
    url,
    apiUrl,
    credential,
    client,
    logs,
    call: (method, args = {}) => client.apiCall(method, args) as never,
    link: () => appLink(server.host.ctx),
    async close() {
      await gateway.closeAll();
      await server.close();
      writer.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Poll until `probe` answers something truthy (or fail after `ms`). */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
