// Shared setup for the GitHub twin's contract tests: a running twin, an Octokit pointed at it,
// and the twin's admin records API (what the control plane uses to read and replace records).

import { Octokit } from '@octokit/rest';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

export interface GitHubTwin {
  twin: RunningTwin;
  octokit: Octokit;
  /** GET/PUT a record through the twin's admin API. */
  record(resource: string, id: string, fields?: unknown): Promise<any>;
  close(): Promise<void>;
}

export const GITHUB_TEST_START = new Date('2026-01-05T10:00:00Z');

export async function startGitHub(opts: { clockStart?: Date } = {}): Promise<GitHubTwin> {
  return gitHubOn(await startTwin('github', { clockStart: opts.clockStart ?? GITHUB_TEST_START }));
}

/** The twin standalone or behind the recording gateway: the two ways a contract test runs it. */
export async function startGitHubVia(via: 'standalone' | 'gateway'): Promise<{ octokit: Octokit; close(): Promise<void> }> {
  const opts = { clockStart: GITHUB_TEST_START };
  const target = via === 'gateway' ? await startTwinBehindGateway('github', opts) : await startTwin('github', opts);
  return { octokit: octokitFor(target.url, target.apiKey), close: () => target.close() };
}

/** Octokit as a user configures it for the twin (quiet logs). */
function octokitFor(url: string, apiKey: string): Octokit {
  return new Octokit({ auth: apiKey, baseUrl: url, log: { debug() {}, info() {}, warn() {}, error() {} } });
}

/** Octokit and the records helper around a running GitHub twin (started here or behind a gateway). */
export function gitHubOn(twin: RunningTwin): GitHubTwin {
  const octokit = octokitFor(twin.url, twin.apiKey);
  return {
    twin,
    octokit,
    async record(resource, id, fields) {
      const res = await fetch(`${twin.url}/_twin/records/${resource}/${encodeURIComponent(id)}`, {
        method: fields === undefined ? 'GET' : 'PUT',
        headers: { 'content-type': 'application/json' },
        body: fields === undefined ? undefined : JSON.stringify({ fields }),
      });
      if (res.status !== 200) throw new Error(`record ${resource}/${id}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { body: unknown }).body;
    },
    close: () => twin.close(),
  };
}

/** The error Octokit threw (RequestError carries status and the parsed body). */
export async function failure(p: Promise<unknown>): Promise<{ status: number; body: any; headers: Record<string, string> }> {
  try {
    await p;
  } catch (e: any) {
    return { status: e.status, body: e.response?.data, headers: e.response?.headers ?? {} };
  }
  throw new Error('expected the request to fail');
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');
