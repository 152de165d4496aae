// Slack apps against a Slack twin run by the control plane (process driver, real gateway), with
// an unchanged @slack/bolt app: events per second delivered over Socket Mode vs over HTTP (Events
// API POSTs), side by side; and the latency from a person's click (twin.actions.click) to the
// app's action listener, next to a plain Web API round trip (auth.test) through the same gateway.
//   npm run build && node --import=tsx scripts/bench/slack-apps.ts [events] [clicks] [concurrency]

import { App, LogLevel } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { createServer } from 'node:net';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const EVENTS = Math.min(20_000, Number(process.argv[2] ?? 1000));
const CLICKS = Math.min(5000, Number(process.argv[3] ?? 300));
const CONCURRENCY = Math.min(128, Number(process.argv[4] ?? 16));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function until(cond: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const bench = await startBenchControlPlane();
try {
  const created = await bench.call('POST', '/environments', { name: 'slack apps bench', twins: [{ twin: 'slack' }] });
  let env = created.body;
  for (let i = 0; env.status !== 'ready'; i++) {
    if (i > 3000) throw new Error('twin not ready');
    await new Promise((r) => setTimeout(r, 10));
    env = (await bench.call('GET', `/environments/${env.id}`)).body;
  }
  const twin = env.twins[0];
  const cred = (await bench.call('POST', `/twins/${twin.id}/credential`)).body as { api_key: string; app_token: string; signing_secret: string };
  if (!cred.app_token || !cred.signing_secret) throw new Error(`credential without app_token/signing_secret: ${JSON.stringify(Object.keys(cred))}`);
  const apiUrl = `${twin.url}/api/`;
  const web = new WebClient(cred.api_key, { slackApiUrl: apiUrl, retryConfig: { retries: 0 } });
  const general = (await web.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
  const ada = (await web.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

  async function flood(label: string, counter: () => number): Promise<number> {
    const start = counter();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < EVENTS) {
          next++;
          await web.apiCall('twin.messages.postAsUser', { user: ada, channel: general, text: `load ${label}` });
        }
      }),
    );
    await until(() => counter() - start >= EVENTS);
    return EVENTS / ((performance.now() - started) / 1000);
  }

  // ---- Socket Mode -----------------------------------------------------------------------------
  let socketEvents = 0;
  const clickTimes: number[] = [];
  let clickResolve: (() => void) | undefined;
  const socketApp = new App({
    token: cred.api_key,
    appToken: cred.app_token,
    socketMode: true,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: apiUrl },
    installerOptions: { clientOptions: { slackApiUrl: apiUrl } },
  });
  socketApp.event('message', async () => {
    socketEvents++;
  });
  socketApp.action('bench', async ({ ack }) => {
    await ack();
    clickResolve?.();
  });
  await socketApp.start();
  await new Promise((r) => setTimeout(r, 500));
  const socketRate = await flood('socket', () => socketEvents);

  // Click → listener.
  const button = await web.chat.postMessage({
    channel: general,
    text: 'bench',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'bench', text: { type: 'plain_text', text: 'Go' } }] }],
  });
  for (let i = 0; i < CLICKS; i++) {
    const t0 = performance.now();
    const heard = new Promise<void>((r) => (clickResolve = r));
    await web.apiCall('twin.actions.click', { user: ada, channel: general, message_ts: button.ts, action_id: 'bench' });
    await heard;
    clickTimes.push(performance.now() - t0);
  }
  const apiTimes: number[] = [];
  for (let i = 0; i < CLICKS; i++) {
    const t0 = performance.now();
    await web.auth.test();
    apiTimes.push(performance.now() - t0);
  }
  await socketApp.stop();

  // ---- HTTP (Events API) -------------------------------------------------------------------------
  await web.apiCall('twin.settings.set', { setting: 'app', value: { socket_mode: false } });
  let httpEvents = 0;
  const port = await freePort();
  const httpApp = new App({ token: cred.api_key, signingSecret: cred.signing_secret, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: apiUrl } });
  httpApp.event('message', async () => {
    httpEvents++;
  });
  await httpApp.start(port);
  await web.apiCall('twin.settings.set', { setting: 'events', value: { request_url: `http://127.0.0.1:${port}/slack/events` } });
  const httpRate = await flood('http', () => httpEvents);
  await httpApp.stop();

  console.log(`Slack apps (Bolt ${EVENTS} events, concurrency ${CONCURRENCY}, twin in its own process behind the gateway)`);
  console.log(`  events/s delivered over Socket Mode: ${socketRate.toFixed(0)}`);
  console.log(`  events/s delivered over HTTP:        ${httpRate.toFixed(0)}   (Socket/HTTP = ${(socketRate / httpRate).toFixed(2)})`);
  console.log(`  click → Bolt listener (${CLICKS}): p50 ${fmt(percentile(clickTimes, 50))}, p95 ${fmt(percentile(clickTimes, 95))}`);
  console.log(`  auth.test round trip  (${CLICKS}): p50 ${fmt(percentile(apiTimes, 50))}, p95 ${fmt(percentile(apiTimes, 95))}`);
  console.log(`  added by the click path (p50): ${fmt(percentile(clickTimes, 50) - percentile(apiTimes, 50))}`);
} finally {
  await bench.stop();
}
