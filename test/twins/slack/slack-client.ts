// Shared setup for the Slack twin's contract tests: a running twin and the official SDK aimed at it.

import { LogLevel, WebClient } from '@slack/web-api';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

export interface SlackTwin {
  twin: RunningTwin;
  client: WebClient;
  /** A client with another token (for auth errors). */
  clientWith(token: string): WebClient;
}

export const CLOCK_START = new Date('2026-03-02T09:00:00Z');

export async function startSlack(): Promise<SlackTwin> {
  const twin = await startTwin('slack', { clockStart: CLOCK_START });
  const clientWith = (token: string) =>
    new WebClient(token, {
      slackApiUrl: `${twin.url}/api/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
  return { twin, client: clientWith(twin.apiKey), clientWith };
}

/** The error code the SDK reports for a refused call (`data.error` of its platform error). */
export async function slackError(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (e) {
    const err = e as { code?: string; data?: { error?: string } };
    if (err.code === 'slack_webapi_platform_error') return err.data?.error ?? '(no error code)';
    throw e;
  }
  throw new Error('expected the call to fail');
}
