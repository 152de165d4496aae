// A Slack twin behind the recording gateway (test/helpers/gateway-twin.ts), as apps meet it: every
// Web API call, response URL and the Socket Mode WebSocket go through the gateway URL. What this
// adds for Slack apps: the app's credential and a bot-token client.

import { LogLevel, WebClient } from '@slack/web-api';
import type { RequestLogStore } from '../../../control-plane/store/request-logs.js';
import type { TwinServer } from '../../../twin-runtime/server.js';
import { appLink } from '../../../twins/slack/model/app-link.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

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
  const gw = await startTwinBehindGateway('slack', { clockStart: new Date('2026-03-02T09:00:00Z') });
  const server = gw.twin.server;
  const credential = (await (await fetch(`${gw.twin.url}/_twin/credential`)).json()) as SlackCredential;
  const apiUrl = `${gw.url}/api/`;
  const client = new WebClient(credential.api_key, { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
  return {
    server,
    url: gw.url,
    apiUrl,
    credential,
    client,
    logs: gw.logs,
    call: (method, args = {}) => client.apiCall(method, args) as never,
    link: () => appLink(server.host.ctx),
    close: () => gw.close(),
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
